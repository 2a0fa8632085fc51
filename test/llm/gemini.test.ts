/** The Gemini wire's own rules: thought signatures, thinking budget, safety and recitation stops. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { accumulate } from "../../src/llm/accumulate.js";
import { isProviderError } from "../../src/llm/errors.js";
import { createGeminiProvider } from "../../src/llm/gemini.js";
import type { ModelRequest } from "../../src/llm/types.js";
import { type MockProvider, reply, startMockProvider } from "../../src/testing/mock-provider.js";

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());
beforeEach(() => {
  mock.requests.length = 0;
});

const provider = () =>
  createGeminiProvider({ env: { GEMINI_API_KEY: "gk", GOOGLE_GEMINI_BASE_URL: mock.geminiBaseURL } });
const ask = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  model: "gemini-2.5-flash",
  system: "Be brief.",
  messages: [{ role: "user", content: "hi" }],
  ...over,
});

describe("gemini", () => {
  it("reads the key and base URL from GEMINI_API_KEY and GOOGLE_GEMINI_BASE_URL; sends the thinking budget", async () => {
    mock.enqueue(reply.text("ok"));
    await accumulate(
      provider().stream(ask({ thinking: { type: "enabled", budgetTokens: 2048 }, maxTokens: 500 })),
    );
    const seen = mock.requests[0];
    expect(seen.url).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    expect(seen.headers["x-goog-api-key"]).toBe("gk");
    expect(seen.body).toEqual({
      contents: [{ role: "user", parts: [{ text: "hi" }] }],
      systemInstruction: { parts: [{ text: "Be brief." }] },
      generationConfig: {
        maxOutputTokens: 500,
        thinkingConfig: { thinkingBudget: 2048, includeThoughts: true },
      },
    });
  });

  it("sends each thought signature back on the part that carried it, and names the function of each result", async () => {
    const p = provider();
    mock.enqueue(
      reply.message([
        { type: "thinking", thinking: "Look first.", signature: "VGhvdWdodA==" },
        { type: "text", text: "Looking.", signature: "VGV4dA==" },
        { type: "tool_use", name: "Read", input: { file_path: "/a" }, signature: "Q2FsbA==" },
        { type: "tool_use", name: "Grep", input: { pattern: "x" } },
      ]),
      reply.text("done"),
    );
    const first = await accumulate(p.stream(ask()));
    const calls = first.content.filter((b) => b.type === "tool_use");
    expect(calls.map((c) => c.type === "tool_use" && [c.name, c.signature])).toEqual([
      ["Read", "Q2FsbA=="],
      ["Grep", undefined],
    ]);
    const results = calls.map((c) => ({
      type: "tool_result" as const,
      tool_use_id: c.type === "tool_use" ? c.id : "",
      content: "r",
    }));
    await accumulate(
      p.stream(
        ask({ messages: [{ role: "user", content: "hi" }, first, { role: "user", content: results }] }),
      ),
    );
    const [, model, user] = mock.requests[1].body.contents;
    expect(model).toEqual({
      role: "model",
      parts: [
        { text: "Look first.", thought: true, thoughtSignature: "VGhvdWdodA==" },
        { text: "Looking.", thoughtSignature: "VGV4dA==" },
        { functionCall: { name: "Read", args: { file_path: "/a" } }, thoughtSignature: "Q2FsbA==" },
        { functionCall: { name: "Grep", args: { pattern: "x" } } },
      ],
    });
    // Ids Gemini did not give are ours: not sent; the name ties each response to its call.
    expect(user.parts).toEqual([
      { functionResponse: { name: "Read", response: { output: "r" } } },
      { functionResponse: { name: "Grep", response: { output: "r" } } },
    ]);
  });

  it("leaves out the signatures another provider wrote (a session that switched models)", async () => {
    mock.enqueue(reply.text("ok"));
    await accumulate(
      provider().stream(
        ask({
          messages: [
            { role: "user", content: "hi" },
            {
              role: "assistant",
              model: "anthropic/claude-sonnet-4-5",
              content: [
                { type: "thinking", thinking: "Claude's thought", signature: "QW50aHJvcGlj" },
                { type: "tool_use", id: "toolu_1", name: "Read", input: {} },
              ],
            },
            { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "x" }] },
          ],
        }),
      ),
    );
    const parts = mock.requests[0].body.contents.flatMap((c: any) => c.parts);
    expect(JSON.stringify(parts)).not.toContain("QW50aHJvcGlj");
    expect(parts.filter((p: any) => p.thought)).toEqual([]);
  });

  it("reports thoughts as output tokens and cached content apart from input", async () => {
    mock.enqueue(
      reply.thinking("hmm", "ok", { usage: { input: 30, cacheRead: 70, output: 12, reasoning: 8 } }),
    );
    const m = await accumulate(provider().stream(ask()));
    expect(m.usage).toEqual({
      input_tokens: 30,
      cache_read_input_tokens: 70,
      cache_creation_input_tokens: 0,
      output_tokens: 12,
      reasoning_tokens: 8,
    });
  });

  it("maps a safety stop and a recitation stop to refusal, with Gemini's reason", async () => {
    mock.enqueue(
      reply.text("Here is", { stopReason: "refusal" }),
      reply.text("Verbatim", { geminiFinishReason: "RECITATION" }),
    );
    const safety = await accumulate(provider().stream(ask()));
    const recitation = await accumulate(provider().stream(ask()));
    expect([safety.stop_reason, safety.stop_details]).toEqual(["refusal", "SAFETY"]);
    expect([recitation.stop_reason, recitation.stop_details]).toEqual(["refusal", "RECITATION"]);
  });

  it("fails a blocked prompt with its reason, never retried as a server error", async () => {
    mock.enqueue(
      reply.raw(
        `data: ${JSON.stringify({ promptFeedback: { blockReason: "PROHIBITED_CONTENT" }, usageMetadata: { promptTokenCount: 5 } })}\r\n\r\n`,
      ),
    );
    const err = await accumulate(provider().stream(ask())).catch((e: unknown) => e);
    expect(isProviderError(err) && err.kind).toBe("invalid_request");
    expect(String((err as Error).message)).toContain("PROHIBITED_CONTENT");
  });

  it("maps Google's error statuses: 429 RESOURCE_EXHAUSTED, a token-count overflow", async () => {
    mock.enqueue(reply.error(429), reply.overflow());
    const limited = await accumulate(provider().stream(ask())).catch((e: unknown) => e);
    const overflow = await accumulate(provider().stream(ask())).catch((e: unknown) => e);
    expect(isProviderError(limited) && [limited.kind, limited.message]).toEqual([
      "rate_limit",
      expect.stringContaining("RESOURCE_EXHAUSTED"),
    ]);
    expect(isProviderError(overflow) && overflow.kind).toBe("context_overflow");
  });
});
