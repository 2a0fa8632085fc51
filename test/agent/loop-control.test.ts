/**
 * Scheduling and control of the loop: concurrency, steering, follow-ups, interrupts, multi-turn
 * input, stop predicates, the observable state and the max_tokens and overflow branches.
 */

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentPhase } from "../../src/loop/state.js";
import { hasToolCall, stepCountIs } from "../../src/loop/stop-conditions.js";
import { query, type SDKUserMessageInput } from "../../src/sdk/query.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import {
  collect,
  echoTool,
  mockOptions,
  resultOf,
  stubbornTool,
  timedTool,
  toolResultsSent,
} from "./helpers.js";

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

const overlaps = (log: Array<[string, string, number]>, a: string, b: string) => {
  const t = (tag: string, kind: string) => log.find(([x, k]) => x === tag && k === kind)![2];
  return t(a, "start") < t(b, "end") && t(b, "start") < t(a, "end");
};

describe("tool scheduling", () => {
  it("runs read-only calls concurrently and holds a mutating call until they finish", async () => {
    const log: Array<[string, string, number]> = [];
    const slowRead = timedTool("slow_read", "none", 150, log);
    const slowWrite = timedTool("slow_write", "mutating", 100, log);
    mock.enqueue(
      reply.toolCalls([
        { name: "slow_read", input: { tag: "r1" } },
        { name: "slow_read", input: { tag: "r2" } },
        { name: "slow_write", input: { tag: "w1" } },
        { name: "slow_read", input: { tag: "r3" } },
      ]),
      reply.text("done"),
    );
    await collect(
      query({ prompt: "x", options: mockOptions(mock, "anthropic", { tools: [slowRead, slowWrite] }) }),
    );
    expect(overlaps(log, "r1", "r2")).toBe(true);
    expect(overlaps(log, "w1", "r1")).toBe(false);
    expect(overlaps(log, "w1", "r2")).toBe(false);
    expect(overlaps(log, "w1", "r3")).toBe(false);
    const time = (tag: string, kind: string) => log.find(([x, k]) => x === tag && k === kind)![2];
    expect(time("w1", "start")).toBeGreaterThanOrEqual(Math.max(time("r1", "end"), time("r2", "end")));
    expect(time("r3", "start")).toBeGreaterThanOrEqual(time("w1", "end"));
    // Results still come back in the model's order.
    expect(toolResultsSent(mock.requests[1].body).map((r) => r.content)).toEqual([
      "done r1",
      "done r2",
      "done w1",
      "done r3",
    ]);
  });

  it("respects the concurrency cap", async () => {
    const log: Array<[string, string, number]> = [];
    const slowRead = timedTool("slow_read", "none", 80, log);
    mock.enqueue(
      reply.toolCalls(["a", "b", "c"].map((tag) => ({ name: "slow_read", input: { tag } }))),
      reply.text("done"),
    );
    await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", { tools: [slowRead], toolConcurrency: 1 }),
      }),
    );
    expect(overlaps(log, "a", "b")).toBe(false);
    expect(overlaps(log, "b", "c")).toBe(false);
  });
});

describe("tool progress", () => {
  it("repeats tool_progress about once a second while a silent tool runs", async () => {
    const log: Array<[string, string, number]> = [];
    const slow = timedTool("slow_read", "none", 2_300, log);
    mock.enqueue(reply.toolCalls([{ name: "slow_read", input: { tag: "s" } }]), reply.text("done"));
    const messages = await collect(
      query({ prompt: "x", options: mockOptions(mock, "anthropic", { tools: [slow] }) }),
    );
    const elapsed = messages
      .filter((m) => m.type === "tool_progress")
      .map((m: any) => m.elapsed_time_seconds);
    expect(elapsed.length).toBeGreaterThanOrEqual(3);
    expect(elapsed[0]).toBe(0);
    expect(elapsed.at(-1)).toBeGreaterThanOrEqual(1.9);
    for (let i = 1; i < elapsed.length; i++) expect(elapsed[i]).toBeGreaterThan(elapsed[i - 1]);
  });
});

describe("a call whose handling throws", () => {
  it("is still answered, so the next request's history stays valid", async () => {
    // A schema whose transform throws makes validation itself throw, as a buggy extension would.
    const fragile = defineTool({
      name: "fragile",
      description: "throws while its input is parsed",
      inputSchema: z.object({ x: z.string() }).transform(() => {
        throw new Error("schema bug");
      }),
      sideEffect: "none",
      execute: async () => ({ content: "never" }),
    });
    mock.enqueue(reply.toolCalls([{ name: "fragile", input: { x: "a" }, id: "h1" }]), reply.text("went on"));
    const messages = await collect(
      query({ prompt: "x", options: mockOptions(mock, "anthropic", { tools: [fragile] }) }),
    );
    expect(resultOf(messages).result).toBe("went on");
    const sent = toolResultsSent(mock.requests[1].body);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ id: "h1", isError: true });
    expect(sent[0].content).toContain("schema bug");
  });
});

describe("steering and follow-ups", () => {
  it("delivers a steering message at the turn boundary after the running batch", async () => {
    const log: Array<[string, string, number]> = [];
    const slow = timedTool("slow_read", "none", 150, log);
    mock.enqueue(reply.toolCalls([{ name: "slow_read", input: { tag: "s" } }]), reply.text("steered answer"));
    const q = query({ prompt: "x", options: mockOptions(mock, "anthropic", { tools: [slow] }) });
    const messages = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === "tool_progress") q.steer("please also check the tests");
    }
    expect(resultOf(messages).result).toBe("steered answer");
    const second = JSON.stringify(mock.requests[1].body.messages);
    expect(second).toContain("done s");
    expect(second).toContain("please also check the tests");
  });

  it("with interrupt, skips calls not yet started with an explicit result", async () => {
    const log: Array<[string, string, number]> = [];
    const write = timedTool("slow_write", "mutating", 150, log);
    mock.enqueue(
      reply.toolCalls([
        { name: "slow_write", input: { tag: "first" }, id: "w1" },
        { name: "slow_write", input: { tag: "second" }, id: "w2" },
      ]),
      reply.text("ok"),
    );
    const q = query({ prompt: "x", options: mockOptions(mock, "anthropic", { tools: [write] }) });
    for await (const m of q)
      if (m.type === "tool_progress") q.steer("stop, do something else", { interrupt: true });
    expect(log.filter(([, k]) => k === "start").map(([t]) => t)).toEqual(["first"]);
    const sent = toolResultsSent(mock.requests[1].body);
    expect(sent[0]).toMatchObject({ id: "w1", isError: false });
    expect(sent[1].id).toBe("w2");
    expect(sent[1].isError).toBe(true);
    expect(sent[1].content).toMatch(/Skipped/);
    expect(JSON.stringify(mock.requests[1].body.messages)).toContain("stop, do something else");
  });

  it("re-enters the loop with follow-up messages on a normal end", async () => {
    let asked = 0;
    mock.enqueue(reply.text("first"), reply.text("second"));
    const messages = await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", {
          getFollowUpMessages: () => (asked++ === 0 ? [{ role: "user", content: "and now?" }] : []),
        }),
      }),
    );
    expect(resultOf(messages).result).toBe("second");
    expect(resultOf(messages).num_turns).toBe(2);
    expect(JSON.stringify(mock.requests[1].body.messages)).toContain("and now?");
  });
});

describe("interrupt and abort", () => {
  it("interrupts a slow stream quickly and ends with error_during_execution", async () => {
    mock.enqueue(reply.text("a b c d e f g h i j k l m n o p", { chunkSize: 2, delayMs: 100 }));
    const q = query({
      prompt: "x",
      options: mockOptions(mock, "anthropic", { includePartialMessages: true }),
    });
    const messages = [];
    let interruptedAt = 0;
    for await (const m of q) {
      messages.push(m);
      if (m.type === "stream_event" && (m as any).event.type === "content_block_delta" && !interruptedAt) {
        interruptedAt = Date.now();
        void q.interrupt();
      }
      if (m.type === "result") expect(Date.now() - interruptedAt).toBeLessThan(500);
    }
    const result = resultOf(messages);
    expect(result.subtype).toBe("error_during_execution");
    expect(result.is_error).toBe(true);
    expect(result.exit_reason).toBe("interrupted");
    expect(q.state.observe().phase).toBe("cancelled");
  });

  it("interrupting during a tool gives every tool_use a result and starts no further request", async () => {
    const log: Array<[string, string, number]> = [];
    const slow = timedTool("slow_read", "none", 5_000, log);
    mock.enqueue(
      reply.toolCalls([
        { name: "slow_read", input: { tag: "a" }, id: "t1" },
        { name: "slow_read", input: { tag: "b" }, id: "t2" },
      ]),
    );
    const q = query({ prompt: "x", options: mockOptions(mock, "anthropic", { tools: [slow] }) });
    const started = Date.now();
    const messages = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === "tool_progress") void q.interrupt();
    }
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(mock.requests).toHaveLength(1);
    const results = messages
      .filter((m) => m.type === "user")
      .map((m: any) => m.message.content[0].tool_use_id);
    expect(results.sort()).toEqual(["t1", "t2"]);
    expect(resultOf(messages).exit_reason).toBe("interrupted");
  });

  it("does not wait for a tool that ignores the interrupt", async () => {
    mock.enqueue(reply.toolCalls([{ name: "stubborn", input: {}, id: "s1" }]));
    const q = query({
      prompt: "x",
      options: mockOptions(mock, "anthropic", { tools: [stubbornTool(3_000)] }),
    });
    let interruptedAt = 0;
    const messages = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === "tool_progress") {
        interruptedAt = Date.now();
        void q.interrupt();
      }
    }
    expect(Date.now() - interruptedAt).toBeLessThan(400);
    const result = messages.find((m) => m.type === "user") as any;
    expect(result.message.content[0]).toMatchObject({ tool_use_id: "s1", is_error: true });
    expect(result.message.content[0].content).toMatch(/interrupted/i);
  });

  it("aborting the caller's controller ends the query with exit reason aborted", async () => {
    const controller = new AbortController();
    mock.enqueue(reply.text("slow slow slow slow", { chunkSize: 2, delayMs: 100 }));
    const q = query({
      prompt: "x",
      options: mockOptions(mock, "anthropic", { abortController: controller }),
    });
    setTimeout(() => controller.abort(), 150);
    const messages = await collect(q);
    expect(resultOf(messages).exit_reason).toBe("aborted");
    expect(q.state.observe().phase).toBe("cancelled");
  });
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

describe("stop predicates and state", () => {
  it("stops on stepCountIs after the step's tools ran, keeping the transcript valid", async () => {
    mock.enqueue(
      reply.toolCalls([{ name: "echo", input: { text: "1" } }]),
      reply.toolCalls([{ name: "echo", input: { text: "2" } }]),
    );
    const messages = await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", { tools: [echoTool], stopWhen: stepCountIs(2) }),
      }),
    );
    const result = resultOf(messages);
    expect(result.exit_reason).toBe("predicate");
    expect(result.subtype).toBe("success");
    expect(messages.filter((m) => m.type === "user")).toHaveLength(2);
    expect(mock.requests).toHaveLength(2);
  });

  it("stops on hasToolCall and treats a throwing predicate as don't-stop, reporting it", async () => {
    mock.enqueue(reply.toolCalls([{ name: "echo", input: { text: "1" } }]));
    const boom = () => {
      throw new Error("predicate bug");
    };
    const messages = await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", { tools: [echoTool], stopWhen: [boom, hasToolCall("echo")] }),
      }),
    );
    expect(resultOf(messages).exit_reason).toBe("predicate");
    const warning = messages.find(
      (m) => m.type === "system" && (m as any).subtype === "informational",
    ) as any;
    expect(warning.content).toContain("predicate bug");
  });

  it("moves through the phases and ends in a sticky terminal phase", async () => {
    mock.enqueue(reply.toolCalls([{ name: "echo", input: { text: "1" } }]), reply.text("end"));
    const q = query({ prompt: "x", options: mockOptions(mock, "anthropic", { tools: [echoTool] }) });
    const seen: Array<[AgentPhase, number]> = [];
    q.state.subscribe((s) => seen.push([s.phase, s.step]));
    await collect(q);
    const phases = seen.map(([p]) => p);
    expect(phases).toContain("llm_in_flight");
    expect(phases).toContain("tool_executing");
    expect(phases).toContain("step_finished");
    expect(seen).toContainEqual(["tool_executing", 1]);
    expect(seen).toContainEqual(["llm_in_flight", 2]);
    expect(phases.at(-1)).toBe("done");
    expect(q.state.observe()).toEqual({ phase: "done", step: 2 });
  });
});

describe("max_tokens and context overflow", () => {
  it("never runs the tool calls of an answer cut off by max_tokens and asks once to continue", async () => {
    const log: Array<[string, string, number]> = [];
    const write = timedTool("slow_write", "mutating", 1, log);
    mock.enqueue(
      reply.toolCalls([{ name: "slow_write", input: { tag: "half" } }], { stopReason: "max_tokens" }),
      reply.text("continued"),
    );
    const messages = await collect(
      query({ prompt: "x", options: mockOptions(mock, "anthropic", { tools: [write] }) }),
    );
    expect(log).toHaveLength(0);
    expect(resultOf(messages).result).toBe("continued");
    const second = JSON.stringify(mock.requests[1].body.messages);
    expect(second).not.toContain("tool_use");
    expect(second).toContain("output token limit");
  });

  it("ends with max_tokens when the answer is cut off twice", async () => {
    mock.enqueue(
      reply.text("cut", { stopReason: "max_tokens" }),
      reply.text("cut again", { stopReason: "max_tokens" }),
    );
    const messages = await collect(query({ prompt: "x", options: mockOptions(mock, "anthropic") }));
    expect(resultOf(messages).exit_reason).toBe("max_tokens");
    expect(resultOf(messages).subtype).toBe("error_during_execution");
  });

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
