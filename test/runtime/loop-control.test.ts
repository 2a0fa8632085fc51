/**
 * Loop control over the wire: multi-turn input (the OpenAI body carries the earlier exchange), the
 * session after an interrupt, a stop sequence as the request sends it, and recovery from each
 * provider's real "prompt is too long" error. The loop's other branches (scheduling, steering,
 * interrupts, stop predicates, max_tokens) run in memory in loop-in-memory.test.ts.
 */

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { query, type SDKUserMessageInput } from "../../src/sdk/query.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { collect, mockOptions, resultOf, timedTool, toolResultsSent } from "./helpers.js";

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.requests.length = 0;
  expect(mock.pending()).toBe(0);
});

describe("multi-turn input", () => {
  it("runs one turn per user message and the next request carries the earlier exchange", async () => {
    mock.enqueue(reply.text("answer one"), reply.text("answer two"));
    async function* input(): AsyncGenerator<SDKUserMessageInput> {
      yield { type: "user", message: { role: "user", content: "first question" } };
      yield { type: "user", message: { role: "user", content: "second question" } };
    }
    const messages = await collect(query({ prompt: input(), options: mockOptions(mock, "openai") }));
    const results = messages.filter((m) => m.type === "result") as any[];
    expect(results.map((r) => r.result)).toEqual(["answer one", "answer two"]);
    expect(messages.filter((m) => m.type === "system" && (m as any).subtype === "init")).toHaveLength(2);
    const second = mock.requests[1].body.messages.map((m: any) => [m.role, m.content]);
    expect(second).toEqual([
      ["system", expect.any(String)],
      ["user", "first question"],
      ["assistant", "answer one"],
      ["user", "second question"],
    ]);
  });

  it("after an interrupt the session keeps reading input and the next request has the interrupted calls answered", async () => {
    const log: Array<[string, string, number]> = [];
    const slow = timedTool("slow_read", "none", 5_000, log);
    mock.enqueue(
      reply.toolCalls([{ name: "slow_read", input: { tag: "a" }, id: "k1" }]),
      reply.text("recovered"),
    );
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    async function* input(): AsyncGenerator<SDKUserMessageInput> {
      yield { type: "user", message: { role: "user", content: "start slow work" } };
      await gate;
      yield { type: "user", message: { role: "user", content: "never mind" } };
    }
    const q = query({ prompt: input(), options: mockOptions(mock, "anthropic", { tools: [slow] }) });
    const results: any[] = [];
    for await (const m of q) {
      if (m.type === "tool_progress") void q.interrupt();
      if (m.type === "result") {
        results.push(m);
        release();
      }
    }
    expect(results.map((r) => r.exit_reason)).toEqual(["interrupted", "end_turn"]);
    const sent = toolResultsSent(mock.requests[1].body);
    expect(sent).toHaveLength(1);
    expect(sent[0].id).toBe("k1");
    expect(sent[0].isError).toBe(true);
  });
});

describe("stop sequences and context overflow", () => {
  it("ends with stop_sequence as a normal finish", async () => {
    mock.enqueue(reply.text("up to here", { stopReason: "stop_sequence", stopSequence: "###" }));
    const messages = await collect(
      query({ prompt: "x", options: mockOptions(mock, "anthropic", { stopSequences: ["###"] }) }),
    );
    expect(resultOf(messages).exit_reason).toBe("stop_sequence");
    expect(mock.requests[0].body.stop_sequences).toEqual(["###"]);
  });

  it("recovers from the provider's real 'prompt is too long' error once per turn by compacting", async () => {
    let compactions = 0;
    mock.enqueue(reply.overflow(), reply.text("fits now"));
    const messages = await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", {
          compactor: async (history) => {
            compactions++;
            return {
              messages: [
                { role: "custom", customType: "compaction_summary", content: "summary" },
                ...history.slice(-1),
              ],
              summary: "summary",
              preTokens: 1000,
              postTokens: 10,
            };
          },
        }),
      }),
    );
    expect(compactions).toBe(1);
    expect(resultOf(messages).result).toBe("fits now");
    expect(messages.some((m) => m.type === "system" && (m as any).subtype === "compact_boundary")).toBe(true);
  });

  it("does not loop when the history still overflows after compacting", async () => {
    let compactions = 0;
    mock.enqueue(reply.overflow(), reply.overflow());
    const messages = await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "openai", {
          compactor: async (history) => {
            compactions++;
            return { messages: history, summary: "s", preTokens: 1, postTokens: 1 };
          },
        }),
      }),
    );
    expect(compactions).toBe(1);
    expect(mock.requests).toHaveLength(2);
    const result = resultOf(messages) as any;
    expect(result.exit_reason).toBe("error");
    expect(result.errors.join(" ")).toMatch(/context/i);
  });
});
