/** Streaming behaviour both providers share, run against the mock in each wire format. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { accumulate } from "../../src/llm/accumulate.js";
import { createAnthropicProvider } from "../../src/llm/anthropic.js";
import { createOpenAIProvider } from "../../src/llm/openai.js";
import type { ModelRequest, Provider, StreamEvent } from "../../src/llm/types.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());

const providers: Array<[string, () => Provider]> = [
  ["anthropic", () => createAnthropicProvider({ baseURL: mock.anthropicBaseURL, apiKey: "test-key" })],
  ["openai", () => createOpenAIProvider({ baseURL: mock.openaiBaseURL, apiKey: "test-key" })],
];

const ask = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  model: "m-1",
  messages: [{ role: "user", content: "hello" }],
  ...over,
});

describe.each(providers)("%s provider streaming", (name, make) => {
  let provider: Provider;
  beforeEach(() => {
    provider = make();
    mock.requests.length = 0;
  });

  it("streams text as start/delta/end events and returns the whole message", async () => {
    mock.enqueue(
      reply.text("Hello there, how are you today?", { chunkSize: 5, usage: { input: 42, output: 7 } }),
    );
    const events: StreamEvent[] = [];
    const message = await accumulate(provider.stream(ask()), (e) => events.push(e));
    expect(message.content).toEqual([{ type: "text", text: "Hello there, how are you today?" }]);
    expect(message.stop_reason).toBe("end_turn");
    expect(message.model).toBe(`${name}/m-1`);
    expect(message.id).toBeTruthy();
    expect(message.usage).toEqual({
      input_tokens: 42,
      output_tokens: 7,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("message_start");
    expect(types[1]).toBe("text_start");
    expect(types.filter((t) => t === "text_delta").length).toBe(7);
    expect(types.slice(-3)).toEqual(["text_end", "usage", "message_end"]);
  });

  it("accumulates thinking before text", async () => {
    mock.enqueue(reply.thinking("Let me think about it.", "Answer.", { signature: "sig-abc" }));
    const message = await accumulate(provider.stream(ask({ thinkingBudget: 2048 })));
    const thinking = message.content[0];
    expect(thinking).toMatchObject({ type: "thinking", thinking: "Let me think about it." });
    // Only Anthropic carries signatures; Chat Completions has no such field.
    if (name === "anthropic") expect(thinking).toMatchObject({ signature: "sig-abc" });
    expect(message.content[1]).toEqual({ type: "text", text: "Answer." });
  });

  it("returns parallel tool calls with parsed inputs and stop_reason tool_use", async () => {
    mock.enqueue(
      reply.toolCalls(
        [
          { name: "Read", input: { file_path: "/a.txt" }, id: "call_a" },
          { name: "Grep", input: { pattern: "fo+", path: "/src" }, id: "call_b" },
        ],
        { text: "Reading both.", chunkSize: 3 },
      ),
    );
    const ends: StreamEvent[] = [];
    const message = await accumulate(
      provider.stream(ask()),
      (e) => e.type === "toolcall_end" && ends.push(e),
    );
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content).toEqual([
      { type: "text", text: "Reading both." },
      { type: "tool_use", id: "call_a", name: "Read", input: { file_path: "/a.txt" } },
      { type: "tool_use", id: "call_b", name: "Grep", input: { pattern: "fo+", path: "/src" } },
    ]);
    expect(ends).toHaveLength(2);
  });

  it("keys tool-call deltas by id when a gateway repeats the id on every chunk", async () => {
    mock.enqueue(
      reply.toolCalls(
        [
          { name: "A", input: { x: 1 }, id: "t1" },
          { name: "B", input: { y: "two" }, id: "t2" },
        ],
        { toolCallIds: "every", chunkSize: 2 },
      ),
    );
    const message = await accumulate(provider.stream(ask()));
    expect(message.content).toEqual([
      { type: "tool_use", id: "t1", name: "A", input: { x: 1 } },
      { type: "tool_use", id: "t2", name: "B", input: { y: "two" } },
    ]);
  });

  it.each([
    ["end_turn", "end_turn"],
    ["stop_sequence", name === "openai" ? "end_turn" : "stop_sequence"],
    ["max_tokens", "max_tokens"],
    ["refusal", "refusal"],
  ] as const)("maps the wire stop reason %s to %s", async (wire, expected) => {
    mock.enqueue(
      reply.text("partial", { stopReason: wire, stopSequence: wire === "stop_sequence" ? "###" : undefined }),
    );
    const message = await accumulate(provider.stream(ask()));
    expect(message.stop_reason).toBe(expected);
    if (name === "anthropic" && wire === "stop_sequence") expect(message.stop_sequence).toBe("###");
    expect(message.truncated).toBeUndefined();
  });

  it("marks a max_tokens answer with tool calls as truncated, keeping the half-written arguments", async () => {
    mock.enqueue(
      reply.toolCalls([{ name: "Write", rawArguments: '{"file_path": "/x", "content": "abc' }], {
        stopReason: "max_tokens",
      }),
    );
    const message = await accumulate(provider.stream(ask()));
    expect(message.stop_reason).toBe("max_tokens");
    expect(message.truncated).toBe(true);
    expect(message.content[0]).toMatchObject({
      type: "tool_use",
      name: "Write",
      input: {},
      raw_input: '{"file_path": "/x", "content": "abc',
    });
  });

  it("keeps invalid tool JSON as parse_error and raw_input instead of throwing", async () => {
    mock.enqueue(reply.toolCalls([{ name: "Bash", rawArguments: "{command: ls}" }]));
    const message = await accumulate(provider.stream(ask()));
    expect(message.stop_reason).toBe("tool_use");
    const call = message.content[0];
    expect(call).toMatchObject({ type: "tool_use", name: "Bash", input: {}, raw_input: "{command: ls}" });
    expect((call as { parse_error?: string }).parse_error).toMatch(/invalid JSON/);
  });

  it("treats empty tool arguments as an empty object", async () => {
    mock.enqueue(reply.toolCalls([{ name: "Now", rawArguments: "" }]));
    const message = await accumulate(provider.stream(ask()));
    expect(message.content[0]).toEqual({ type: "tool_use", id: expect.any(String), name: "Now", input: {} });
  });

  it("decides tool_use from the content when the wire says stop (LiteLLM, vLLM)", async () => {
    mock.enqueue(
      reply.toolCalls([{ name: "Read", input: { file_path: "/x" } }], {
        openaiFinishReason: "stop",
        stopReason: "end_turn",
      }),
    );
    const message = await accumulate(provider.stream(ask()));
    expect(message.stop_reason).toBe("tool_use");
  });

  it("reports cache reads and writes in usage", async () => {
    mock.enqueue(reply.text("cached", { usage: { input: 12, output: 3, cacheRead: 9000, cacheWrite: 500 } }));
    const message = await accumulate(provider.stream(ask()));
    expect(message.usage).toMatchObject({
      input_tokens: 12,
      output_tokens: 3,
      cache_read_input_tokens: 9000,
    });
    // Chat Completions has no cache-write count.
    expect(message.usage?.cache_creation_input_tokens).toBe(name === "anthropic" ? 500 : 0);
  });

  it("reuses one keep-alive connection across calls", async () => {
    mock.enqueue(reply.text("one"), reply.text("two"));
    await accumulate(provider.stream(ask()));
    await accumulate(provider.stream(ask()));
    const [a, b] = mock.requests.slice(-2);
    expect(a.headers.connection).toBe("keep-alive");
    expect(b.connection).toBe(a.connection);
  });

  it("close releases its connection; a later call opens a new one", async () => {
    mock.enqueue(reply.text("one"), reply.text("two"));
    await accumulate(provider.stream(ask()));
    provider.close?.();
    await accumulate(provider.stream(ask()));
    const [a, b] = mock.requests.slice(-2);
    expect(b.connection).not.toBe(a.connection);
  });
});
