/**
 * The conformance scenarios: one list, run against every provider's wire-level mock. Each scenario
 * scripts the mock in neutral terms (`reply.*`, rendered in the provider's own wire) and checks the
 * neutral result and, through the descriptor, what went over the wire.
 */
import { expect } from "vitest";
import { accumulate } from "../../../src/llm/accumulate.js";
import { isProviderError, type ProviderError } from "../../../src/llm/errors.js";
import { type RetryInfo, streamWithRetry } from "../../../src/llm/retry.js";
import type {
  AssistantMessage,
  Message,
  ModelRequest,
  Provider,
  ProviderOptions,
  StreamEvent,
} from "../../../src/llm/types.js";
import { type MockProvider, reply } from "../../../src/testing/mock-provider.js";
import type { ConformanceDescriptor } from "./descriptor.js";

/** What a scenario runs with. */
export interface ScenarioContext {
  mock: MockProvider;
  d: ConformanceDescriptor;
  /** The provider under test pointed at the mock, with extra options. */
  make(options?: ProviderOptions): Provider;
}

/** One scenario. */
export interface Scenario {
  name: string;
  run(ctx: ScenarioContext): Promise<void>;
}

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
// Base64, as Gemini's thought signatures are (and a value no decoder makes up).
const SIGNATURE = "c2lnbmVkLXJlYXNvbmluZy0xMjM=";

const ask = (d: ConformanceDescriptor, over: Partial<ModelRequest> = {}): ModelRequest => ({
  model: d.model,
  maxTokens: 1024,
  messages: [{ role: "user", content: "hello" }],
  ...over,
});

const tools = [
  {
    name: "Read",
    description: "Read a file",
    input_schema: { type: "object", properties: { file_path: { type: "string" } } },
  },
  {
    name: "Grep",
    description: "Search",
    input_schema: { type: "object", properties: { pattern: { type: "string" } } },
  },
];

async function failure(p: Promise<unknown>): Promise<ProviderError> {
  try {
    await p;
  } catch (err) {
    if (isProviderError(err)) return err;
    throw err;
  }
  throw new Error("expected the call to fail");
}

const fastRetry = { retry: { baseDelayMs: 1, maxDelayMs: 50, jitter: false } };

export const scenarios: Scenario[] = [
  {
    name: "streams text and reports usage with cache reads",
    async run({ mock, d, make }) {
      mock.enqueue(
        reply.text("Hello there, how are you today?", {
          chunkSize: 5,
          usage: { input: 42, output: 7, cacheRead: 100 },
        }),
      );
      const events: StreamEvent[] = [];
      const m = await accumulate(make().stream(ask(d)), (e) => events.push(e));
      expect(m.content).toEqual([{ type: "text", text: "Hello there, how are you today?" }]);
      expect(m.stop_reason).toBe("end_turn");
      expect(m.model).toBe(`${d.providerName}/${d.model}`);
      expect(m.usage).toMatchObject({ input_tokens: 42, output_tokens: 7, cache_read_input_tokens: 100 });
      expect(events[0].type).toBe("message_start");
      expect(events.filter((e) => e.type === "text_delta").length).toBe(7);
      expect(events.slice(-3).map((e) => e.type)).toEqual(["text_end", "usage", "message_end"]);
      expect(mock.requests.at(-1)?.format).toBe(d.format);
    },
  },
  {
    name: "runs a tool loop: the call, then its result sent back",
    async run({ mock, d, make }) {
      const provider = make();
      mock.enqueue(
        reply.toolCalls([{ name: "Read", input: { file_path: "/a.txt" }, id: "call_a1" }]),
        reply.text("It says hi."),
      );
      const first = await accumulate(provider.stream(ask(d, { tools })));
      expect(first.stop_reason).toBe("tool_use");
      const call = first.content.find((b) => b.type === "tool_use");
      expect(call).toMatchObject({
        type: "tool_use",
        id: "call_a1",
        name: "Read",
        input: { file_path: "/a.txt" },
      });
      const history: Message[] = [
        { role: "user", content: "hello" },
        first,
        { role: "user", content: [{ type: "tool_result", tool_use_id: "call_a1", content: "hi" }] },
      ];
      const second = await accumulate(provider.stream(ask(d, { tools, messages: history })));
      expect(second.content).toEqual([{ type: "text", text: "It says hi." }]);
      expect(d.sentToolResults(mock.requests.at(-1)?.body)).toEqual(["call_a1"]);
    },
  },
  {
    name: "returns parallel calls in order, with parsed inputs",
    async run({ mock, d, make }) {
      mock.enqueue(
        reply.toolCalls(
          [
            { name: "Read", input: { file_path: "/a.txt" }, id: "call_a" },
            { name: "Grep", input: { pattern: "fo+" }, id: "call_b" },
          ],
          { text: "Reading both.", chunkSize: 3 },
        ),
      );
      const m = await accumulate(make().stream(ask(d, { tools })));
      expect(m.stop_reason).toBe("tool_use");
      expect(m.content).toEqual([
        { type: "text", text: "Reading both." },
        expect.objectContaining({
          type: "tool_use",
          id: "call_a",
          name: "Read",
          input: { file_path: "/a.txt" },
        }),
        expect.objectContaining({ type: "tool_use", id: "call_b", name: "Grep", input: { pattern: "fo+" } }),
      ]);
    },
  },
  {
    name: "sends an image",
    async run({ mock, d, make }) {
      mock.enqueue(reply.text("A pixel."));
      const messages: Message[] = [
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
          ],
        },
      ];
      const m = await accumulate(make().stream(ask(d, { messages })));
      expect(m.content).toEqual([{ type: "text", text: "A pixel." }]);
      expect(d.sentImages(mock.requests.at(-1)?.body)).toEqual([PNG]);
    },
  },
  {
    name: "carries thinking across turns (signature or encrypted reasoning sent back)",
    async run({ mock, d, make }) {
      const provider = make();
      mock.enqueue(
        reply.message([
          { type: "thinking", thinking: "The user wants the file.", signature: SIGNATURE },
          { type: "tool_use", name: "Read", input: { file_path: "/a" }, id: "call_t1", signature: SIGNATURE },
        ]),
        reply.text("Done."),
      );
      const first = await accumulate(
        provider.stream(ask(d, { tools, thinking: { type: "enabled", budgetTokens: 4096 } })),
      );
      expect(first.content[0]).toMatchObject({ type: "thinking", thinking: "The user wants the file." });
      expect(first.content.some((b) => b.type === "tool_use" && b.id === "call_t1")).toBe(true);
      const history: Message[] = [
        { role: "user", content: "hello" },
        first,
        { role: "user", content: [{ type: "tool_result", tool_use_id: "call_t1", content: "x" }] },
      ];
      await accumulate(
        provider.stream(
          ask(d, { tools, messages: history, thinking: { type: "enabled", budgetTokens: 4096 } }),
        ),
      );
      if (d.sentThinking) expect(d.sentThinking(mock.requests.at(-1)?.body)).toContain(SIGNATURE);
    },
  },
  {
    name: "reports a max_tokens cut, and marks a call cut mid-write as truncated",
    async run({ mock, d, make }) {
      const provider = make();
      mock.enqueue(reply.text("Once upon a", { stopReason: "max_tokens" }));
      const cut = await accumulate(provider.stream(ask(d)));
      expect(cut.stop_reason).toBe("max_tokens");
      expect(cut.content).toEqual([{ type: "text", text: "Once upon a" }]);
      mock.enqueue(
        reply.toolCalls([{ name: "Read", input: { file_path: "/a" }, id: "call_c" }], {
          stopReason: "max_tokens",
        }),
      );
      const call = await accumulate(provider.stream(ask(d, { tools })));
      expect(call.stop_reason).toBe("max_tokens");
      expect(call.truncated).toBe(true);
    },
  },
  {
    name: "maps a context overflow to context_overflow",
    async run({ mock, d, make }) {
      mock.enqueue(reply.overflow());
      const err = await failure(accumulate(make().stream(ask(d))));
      expect(err.kind).toBe("context_overflow");
      expect(err.status).toBe(400);
    },
  },
  {
    name: "retries a 429 after the server's retry-after",
    async run({ mock, d, make }) {
      mock.enqueue(reply.error(429, { headers: { "retry-after-ms": "30" } }), reply.text("ok"));
      const retries: RetryInfo[] = [];
      const m = await accumulate(
        streamWithRetry(make(), ask(d), { ...fastRetry, onRetry: (i) => retries.push(i) }),
      );
      expect(m.content).toEqual([{ type: "text", text: "ok" }]);
      expect(retries.map((r) => [r.error.kind, r.error.retryAfterMs, r.delayMs])).toEqual([
        ["rate_limit", 30, 30],
      ]);
    },
  },
  {
    name: "retries overload, as a status and as an error inside the stream",
    async run({ mock, d, make }) {
      mock.enqueue(
        reply.error(d.overloadStatus, { headers: { "retry-after": "0" } }),
        reply.streamError("overloaded_error", "Overloaded"),
        reply.text("ok"),
      );
      const retries: RetryInfo[] = [];
      const m = await accumulate(
        streamWithRetry(make(), ask(d), { ...fastRetry, onRetry: (i) => retries.push(i) }),
      );
      expect(m.content).toEqual([{ type: "text", text: "ok" }]);
      expect(retries).toHaveLength(2);
      expect(["overloaded", "server"]).toContain(retries[0].error.kind);
      expect(retries[1].error.kind).toBe("overloaded");
    },
  },
  {
    name: "times out a stalled stream",
    async run({ mock, d, make }) {
      mock.enqueue(reply.text("slow answer here", { delayMs: 400, chunkSize: 4 }));
      const err = await failure(accumulate(make({ timeouts: { idleMs: 120 } }).stream(ask(d))));
      expect(err.kind).toBe("timeout");
      expect(err.message).toMatch(/stalled/);
    },
  },
  {
    name: "reports a dropped stream as a stream error",
    async run({ mock, d, make }) {
      mock.enqueue(reply.text("this answer is cut off before it ends", { chunkSize: 4, dropAfterEvents: 4 }));
      const err = await failure(accumulate(make().stream(ask(d))));
      expect(err.kind).toBe("stream");
      expect(err.message).toMatch(/connection (dropped|closed)/);
    },
  },
  {
    name: "reports a malformed chunk as a stream error",
    async run({ mock, d, make }) {
      mock.enqueue(reply.text("fine until now", { malformedAfterEvents: 3 }));
      const err = await failure(accumulate(make().stream(ask(d))));
      expect(err.kind).toBe("stream");
      expect(err.message).toMatch(/malformed/);
    },
  },
  {
    name: "fails a refused credential as authentication, without retrying",
    async run({ mock, d, make }) {
      mock.enqueue(reply.error(401));
      const err = await failure(accumulate(streamWithRetry(make(), ask(d), fastRetry)));
      expect(err.kind).toBe("authentication");
      expect(err.status).toBe(401);
      expect(mock.requests).toHaveLength(1);
    },
  },
  {
    name: "asks getApiKey again after a 401 and retries with the new credential",
    async run({ mock, d, make }) {
      const keys = ["expired-token", "fresh-token"];
      let asked = 0;
      const provider = make({ getApiKey: () => keys[Math.min(asked++, 1)] });
      const answer = (request: Parameters<ConformanceDescriptor["credentialOf"]>[0]) =>
        d.credentialOf(request) === "fresh-token" ? reply.text("welcome back") : reply.error(401);
      mock.enqueue(answer, answer);
      const m: AssistantMessage = await accumulate(provider.stream(ask(d)));
      expect(m.content).toEqual([{ type: "text", text: "welcome back" }]);
      expect(mock.requests.map((r) => d.credentialOf(r))).toEqual(["expired-token", "fresh-token"]);
    },
  },
];
