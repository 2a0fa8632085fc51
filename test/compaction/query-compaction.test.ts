/**
 * Compaction end to end through `query()` with the LLM compactor: after the provider's real "prompt
 * is too long" error (reactive) and when the history passes a small model's window (proactive), the
 * next request starts with the summary and the kept tail, and a `compact_boundary` message appears.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLlmCompactor } from "../../src/compaction/llm-compactor.js";
import { createProviderRegistry } from "../../src/llm/resolve.js";
import { SUMMARY_PREFIX } from "../../src/loop/context.js";
import { createModelCaller } from "../../src/loop/model-caller.js";
import { query, type SDKUserMessageInput } from "../../src/sdk/query.js";
import type { SDKMessage } from "../../src/sdk/sdk-messages.js";
import { collect, echoTool, FORMATS, type Format, mockOptions } from "../runtime/helpers.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { filler, pairingProblems } from "./histories.js";

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.requests.length = 0;
});

/** The compactor as the runtime would build it: the same provider, through the model caller. */
function compactorFor(format: Format, keepRecentTokens?: number) {
  const registry = createProviderRegistry([
    format === "anthropic"
      ? { type: "anthropic", baseURL: mock.anthropicBaseURL, apiKey: "test-key" }
      : { type: "openai", baseURL: mock.openaiBaseURL, apiKey: "test-key" },
  ]);
  return createLlmCompactor({
    callModel: createModelCaller(registry, { retry: { baseDelayMs: 5, maxDelayMs: 20 } }),
    keepRecentTokens,
  });
}

async function* prompts(...texts: string[]): AsyncGenerator<SDKUserMessageInput> {
  for (const text of texts) yield { type: "user", message: { role: "user", content: text } };
}

/** The conversation part of a request body (without OpenAI's system message), as JSON text. */
function conversation(index: number): string {
  const messages = mock.requests[index].body.messages.filter((m: { role: string }) => m.role !== "system");
  return JSON.stringify(messages);
}

function boundaries(messages: SDKMessage[]) {
  return messages.filter((m) => m.type === "system" && m.subtype === "compact_boundary") as Array<
    Extract<SDKMessage, { subtype: "compact_boundary" }>
  >;
}

describe.each(FORMATS)("compaction through query() (%s)", (format) => {
  it("recovers from a context overflow by summarizing, then retries with the summary and the kept tail", async () => {
    const first = `FIRST-PROMPT ${filler(800)}`;
    mock.enqueue(
      reply.text("FIRST-ANSWER"),
      reply.overflow(),
      reply.text("SUMMARY-TEXT: the user asked FIRST-PROMPT"),
      reply.text("FINAL-ANSWER"),
    );
    const messages = await collect(
      query({
        prompt: prompts(first, "SECOND-PROMPT"),
        options: mockOptions(mock, format, { compactor: compactorFor(format, 1) }),
      }),
    );
    const results = messages.filter((m) => m.type === "result");
    expect(results.map((r) => (r as { result?: string }).result)).toEqual(["FIRST-ANSWER", "FINAL-ANSWER"]);
    expect(mock.requests).toHaveLength(4);

    // Request 3 is the summary call: the older messages as a transcript, no tools.
    const summaryRequest = conversation(2);
    expect(summaryRequest).toContain("[User]: FIRST-PROMPT");
    expect(summaryRequest).toContain("[Assistant]: FIRST-ANSWER");
    expect(summaryRequest).not.toContain("SECOND-PROMPT");

    // Request 4 is the retried call: summary first, then the kept tail, and nothing older.
    const retried = conversation(3);
    const summaryAt = retried.indexOf(JSON.stringify(SUMMARY_PREFIX).slice(1, 40));
    expect(summaryAt).toBeGreaterThanOrEqual(0);
    expect(retried.indexOf("SUMMARY-TEXT")).toBeGreaterThan(summaryAt);
    expect(retried.indexOf("SECOND-PROMPT")).toBeGreaterThan(retried.indexOf("SUMMARY-TEXT"));
    expect(retried).not.toContain("FIRST-ANSWER");
    expect(retried).not.toContain(filler(800));

    const [boundary] = boundaries(messages);
    expect(boundary.compact_metadata.trigger).toBe("auto");
    expect(boundary.compact_metadata.pre_tokens).toBeGreaterThan(boundary.compact_metadata.post_tokens ?? 0);
    // The boundary comes before the answer it made possible.
    expect(messages.indexOf(boundary)).toBeLessThan(messages.indexOf(results[1]));
  });
});

describe("one long agentic turn", () => {
  it("is compacted inside the turn with every tool call still next to its result", async () => {
    mock.enqueue(
      reply.toolCalls([{ name: "echo", id: "toolu_a", input: { text: `A ${filler(1_000)}` } }]),
      reply.toolCalls([{ name: "echo", id: "toolu_b", input: { text: "B" } }]),
      reply.toolCalls([
        { name: "echo", id: "toolu_c", input: { text: "C" } },
        { name: "echo", id: "toolu_d", input: { text: "D" } },
      ]),
      reply.overflow(),
      reply.text("SUMMARY-TEXT"),
      reply.text("DONE"),
    );
    const messages = await collect(
      query({
        prompt: "TASK-PROMPT: echo some things",
        options: mockOptions(mock, "anthropic", {
          tools: [echoTool],
          compactor: compactorFor("anthropic", 1),
        }),
      }),
    );
    expect((messages.at(-1) as { result?: string }).result).toBe("DONE");
    expect(mock.requests).toHaveLength(6);
    expect(conversation(4)).toContain("[Tool result echo toolu_b]: echo: B");
    const retried = mock.requests[5].body.messages;
    expect(pairingProblems(retried)).toEqual([]);
    // The smallest valid tail: the last (parallel) calls with their results, after the summary.
    expect(retried).toHaveLength(3);
    expect(JSON.stringify(retried[0])).toContain("SUMMARY-TEXT");
    expect(
      retried[1].content
        .filter((b: { type: string }) => b.type === "tool_use")
        .map((b: { id: string }) => b.id),
    ).toEqual(["toolu_c", "toolu_d"]);
  });
});

describe("proactive compaction with a small context window", () => {
  it("compacts before the call once the history passes the window, with no overflow error needed", async () => {
    // Window 4,000 and 500 output tokens: the reserve is 1,000, so compaction starts above 3,000.
    mock.enqueue(
      reply.text("FIRST-ANSWER", { usage: { input: 3_400, output: 20 } }),
      reply.text("SUMMARY-TEXT"),
      reply.text("FINAL-ANSWER"),
    );
    const compactEvents: string[] = [];
    const messages = await collect(
      query({
        prompt: prompts(`FIRST-PROMPT ${filler(2_000)}`, "SECOND-PROMPT"),
        options: mockOptions(mock, "anthropic", {
          model: "anthropic/tiny-window",
          models: [
            {
              id: "tiny-window",
              provider: "anthropic",
              contextWindow: 4_000,
              maxOutputTokens: 500,
              pricing: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
            },
          ],
          // Default 20,000-token tail: larger than the window, so the compactor must shrink it.
          compactor: compactorFor("anthropic"),
          onEvent: (e) => {
            if (e.type === "context_compacted") compactEvents.push(e.trigger);
          },
        }),
      }),
    );
    expect(mock.requests).toHaveLength(3);
    expect(mock.requests[1].body.model).toBe("tiny-window");
    expect(conversation(1)).toContain("[User]: FIRST-PROMPT");
    const after = conversation(2);
    expect(after.indexOf("SUMMARY-TEXT")).toBeGreaterThanOrEqual(0);
    // The tail the compactor shrank to (the last answer and the new prompt) follows verbatim.
    expect(after.indexOf("FIRST-ANSWER")).toBeGreaterThan(after.indexOf("SUMMARY-TEXT"));
    expect(after.indexOf("SECOND-PROMPT")).toBeGreaterThan(after.indexOf("FIRST-ANSWER"));
    expect(after).not.toContain(filler(2_000));
    expect(compactEvents).toEqual(["auto"]);
    const [boundary] = boundaries(messages);
    expect(boundary.compact_metadata.trigger).toBe("auto");
    expect(boundary.compact_metadata.post_tokens).toBeLessThan(1_000);
    const last = messages.filter((m) => m.type === "result").at(-1) as { result?: string };
    expect(last.result).toBe("FINAL-ANSWER");
  });
});
