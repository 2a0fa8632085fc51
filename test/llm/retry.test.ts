import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createAnthropicProvider } from "../../src/llm/anthropic.js";
import { isProviderError, ProviderError, type ProviderErrorKind } from "../../src/llm/errors.js";
import { createOpenAIProvider } from "../../src/llm/openai.js";
import { type RetryInfo, retryDelayMs, sleep, streamWithRetry } from "../../src/llm/retry.js";
import type { AssistantMessage, ModelRequest, Provider, StreamEvent } from "../../src/llm/types.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";

/** One scripted attempt: events to yield, then optionally an error to throw. */
interface Attempt {
  events: StreamEvent[];
  fail?: unknown;
}

/** A provider that plays one scripted attempt per call and counts the calls. */
function scriptedProvider(
  attempts: Attempt[],
): Provider & { calls: number; signals: (AbortSignal | undefined)[] } {
  const p = {
    name: "fake",
    calls: 0,
    signals: [] as (AbortSignal | undefined)[],
    async *stream(request: ModelRequest): AsyncIterable<StreamEvent> {
      const attempt = attempts[p.calls] ?? attempts[attempts.length - 1];
      p.calls++;
      p.signals.push(request.signal);
      if (!attempt) throw new Error("no attempt scripted");
      for (const e of attempt.events) yield e;
      if (attempt.fail !== undefined) throw attempt.fail;
    },
  };
  return p;
}

function err(kind: ProviderErrorKind, extra: Partial<ConstructorParameters<typeof ProviderError>[0]> = {}) {
  return new ProviderError({ kind, provider: "fake", message: `fake ${kind}`, ...extra });
}

const start: StreamEvent = { type: "message_start", model: "m" };
const answer: StreamEvent[] = [
  start,
  { type: "text_start", index: 0 },
  { type: "text_delta", index: 0, delta: "hi" },
  { type: "text_end", index: 0, text: "hi" },
  {
    type: "message_end",
    message: { role: "assistant", content: [{ type: "text", text: "hi" }], stop_reason: "end_turn" },
  },
];
const request: ModelRequest = { model: "m", messages: [{ role: "user", content: "hello" }] };
const fast = { baseDelayMs: 1, maxDelayMs: 5 };

async function collect(it: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

async function failure(it: AsyncIterable<StreamEvent>): Promise<ProviderError> {
  try {
    await collect(it);
  } catch (e) {
    if (isProviderError(e)) return e;
    throw new Error(`expected a ProviderError, got ${String(e)}`);
  }
  throw new Error("expected the stream to fail");
}

describe("streamWithRetry with a scripted provider", () => {
  it("retries overload and rate limits, reports each retry, and yields only the successful attempt", async () => {
    const provider = scriptedProvider([
      { events: [start], fail: err("overloaded") }, // accepted, then a mid-stream overloaded_error
      { events: [], fail: err("rate_limit", { retryAfterMs: 3 }) },
      { events: answer },
    ]);
    const retries: RetryInfo[] = [];
    const events = await collect(
      streamWithRetry(provider, request, { retry: fast, onRetry: (i) => retries.push(i) }),
    );
    expect(events).toEqual(answer); // one message_start, not two
    expect(provider.calls).toBe(3);
    expect(retries.map((r) => [r.attempt, r.maxRetries, r.error.kind])).toEqual([
      [1, 4, "overloaded"],
      [2, 4, "rate_limit"],
    ]);
    expect(retries[1]?.delayMs).toBe(3);
  });

  it("retries server and network errors but gives up after maxRetries with the last error", async () => {
    const provider = scriptedProvider([
      { events: [], fail: err("network") },
      { events: [], fail: err("server", { status: 500 }) },
      { events: [], fail: err("server", { status: 503 }) },
      { events: answer },
    ]);
    const e = await failure(streamWithRetry(provider, request, { retry: { ...fast, maxRetries: 2 } }));
    expect(provider.calls).toBe(3);
    expect([e.kind, e.status]).toEqual(["server", 503]);
  });

  it("retries a stall once by default (maxStallRetries), other errors still up to maxRetries", async () => {
    const stalled = scriptedProvider([{ events: [], fail: err("timeout") }]);
    const e = await failure(streamWithRetry(stalled, request, { retry: fast }));
    expect(e.kind).toBe("timeout");
    expect(stalled.calls).toBe(2);
    // An overload, then stalls: the overload's retry does not count against the stall limit.
    const mixed = scriptedProvider([
      { events: [], fail: err("overloaded") },
      { events: [], fail: err("timeout") },
      { events: [], fail: err("timeout") },
      { events: answer },
    ]);
    const more = scriptedProvider([{ events: [], fail: err("timeout") }]);
    await failure(streamWithRetry(mixed, request, { retry: fast }));
    expect(mixed.calls).toBe(3);
    await failure(streamWithRetry(more, request, { retry: { ...fast, maxStallRetries: 3 } }));
    expect(more.calls).toBe(4);
  });

  it("surfaces an error after the first content event as is, without retrying", async () => {
    const dropped = err("stream", { afterFirstDelta: true });
    const provider = scriptedProvider([{ events: answer.slice(0, 3), fail: dropped }, { events: answer }]);
    const seen: StreamEvent[] = [];
    let caught: unknown;
    try {
      for await (const e of streamWithRetry(provider, request, { retry: fast })) seen.push(e);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBe(dropped);
    expect(provider.calls).toBe(1);
    expect(seen.map((e) => e.type)).toEqual(["message_start", "text_start", "text_delta"]);
  });

  it("does not retry a retryable kind once content was delivered, even if the provider did not flag it", async () => {
    const provider = scriptedProvider([
      { events: answer.slice(0, 2), fail: err("network") },
      { events: answer },
    ]);
    const e = await failure(streamWithRetry(provider, request, { retry: fast }));
    expect(e.kind).toBe("network");
    expect(provider.calls).toBe(1);
  });

  it.each<ProviderErrorKind>([
    "context_overflow",
    "aborted",
    "authentication",
    "invalid_request",
    "invalid_tool_json",
  ])("never retries %s", async (kind) => {
    const provider = scriptedProvider([{ events: [], fail: err(kind) }, { events: answer }]);
    const retries: RetryInfo[] = [];
    const e = await failure(
      streamWithRetry(provider, request, { retry: fast, onRetry: (i) => retries.push(i) }),
    );
    expect(e.kind).toBe(kind);
    expect(provider.calls).toBe(1);
    expect(retries).toEqual([]);
  });

  it("wraps a foreign throw as kind unknown, keeps the cause, and does not retry it", async () => {
    const boom = new TypeError("boom");
    const provider = scriptedProvider([{ events: [], fail: boom }, { events: answer }]);
    const e = await failure(streamWithRetry(provider, request, { retry: fast }));
    expect([e.kind, e.provider, e.cause]).toEqual(["unknown", "fake", boom]);
    expect(e.message).toContain("boom");
    expect(provider.calls).toBe(1);
  });

  it("ends an abort during the backoff wait promptly with kind aborted", async () => {
    const provider = scriptedProvider([{ events: [], fail: err("rate_limit", { retryAfterMs: 10_000 }) }]);
    const controller = new AbortController();
    const t0 = performance.now();
    const e = await failure(
      streamWithRetry(provider, request, {
        signal: controller.signal,
        retry: { maxDelayMs: 20_000 },
        // Announced just before the wait starts: abort once it has.
        onRetry: () => setImmediate(() => controller.abort()),
      }),
    );
    const elapsed = performance.now() - t0;
    expect(e.kind).toBe("aborted");
    expect(e.message).toMatch(/waiting 10000 ms to retry/);
    expect(elapsed).toBeLessThan(1_000);
    expect(provider.calls).toBe(1);
  });

  it("does not call the provider when the signal is already aborted", async () => {
    const provider = scriptedProvider([{ events: answer }]);
    const e = await failure(streamWithRetry(provider, request, { signal: AbortSignal.abort() }));
    expect(e.kind).toBe("aborted");
    expect(provider.calls).toBe(0);
  });

  it("passes one signal to the provider that fires for either the option or the request signal", async () => {
    const a = new AbortController();
    const b = new AbortController();
    const provider = scriptedProvider([{ events: answer }]);
    await collect(streamWithRetry(provider, { ...request, signal: b.signal }, { signal: a.signal }));
    const passed = provider.signals[0];
    expect(passed?.aborted).toBe(false);
    b.abort();
    expect(passed?.aborted).toBe(true);
  });

  it("delivers a content-less answer instead of swallowing the held events", async () => {
    const usage = {
      input_tokens: 1,
      output_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    };
    const only: StreamEvent[] = [start, { type: "usage", usage }];
    expect(await collect(streamWithRetry(scriptedProvider([{ events: only }]), request))).toEqual(only);
  });
});

describe("retryDelayMs", () => {
  it("doubles from the base delay and stops at the cap", () => {
    const opts = { baseDelayMs: 1000, maxDelayMs: 32_000, jitter: false };
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => retryDelayMs(n, {}, opts))).toEqual([
      1000, 2000, 4000, 8000, 16_000, 32_000, 32_000,
    ]);
  });

  it("jitters between half and all of the backoff", () => {
    expect(retryDelayMs(3, {}, {}, () => 0)).toBe(2000);
    expect(retryDelayMs(3, {}, {}, () => 0.999999)).toBe(4000);
  });

  it("uses the server's retry-after, capped at maxDelayMs", () => {
    expect(retryDelayMs(1, { retryAfterMs: 1000 }, {}, () => 0)).toBe(1000);
    expect(retryDelayMs(5, { retryAfterMs: 250 })).toBe(250);
    expect(retryDelayMs(1, { retryAfterMs: 120_000 }, { maxDelayMs: 5000 })).toBe(5000);
  });
});

describe("sleep", () => {
  it("waits, or rejects with the abort reason as soon as the signal fires", async () => {
    const t0 = performance.now();
    await sleep(30);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(25);
    const c = new AbortController();
    setTimeout(() => c.abort(new Error("stop")), 20);
    await expect(sleep(60_000, c.signal)).rejects.toThrow("stop");
  });
});

describe("streamWithRetry over real HTTP against the mock provider", () => {
  let mock: MockProvider;
  let anthropic: Provider;
  let openai: Provider;
  beforeAll(async () => {
    // A wrongful retry gets this success, so "not retried" tests fail loudly instead of hanging on 500s.
    mock = await startMockProvider({ whenEmpty: reply.text("an answer the test did not script") });
    anthropic = createAnthropicProvider({ baseURL: mock.anthropicBaseURL, apiKey: "test-key" });
    openai = createOpenAIProvider({ baseURL: mock.openaiBaseURL, apiKey: "test-key" });
  });
  afterAll(() => mock.close());
  beforeEach(() => {
    mock.requests.length = 0;
    expect(mock.pending()).toBe(0);
  });

  function finalMessage(events: StreamEvent[]): AssistantMessage | undefined {
    const end = events.at(-1);
    return end?.type === "message_end" ? end.message : undefined;
  }

  it("waits at least the retry-after of a 429 and then succeeds", async () => {
    mock.enqueue(reply.error(429, { headers: { "retry-after": "1" } }), reply.text("after the wait"));
    const retries: RetryInfo[] = [];
    const t0 = performance.now();
    const events = await collect(streamWithRetry(anthropic, request, { onRetry: (i) => retries.push(i) }));
    const elapsed = performance.now() - t0;
    expect(elapsed).toBeGreaterThanOrEqual(990);
    expect(finalMessage(events)?.content).toEqual([{ type: "text", text: "after the wait" }]);
    expect(mock.requests).toHaveLength(2);
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ attempt: 1, maxRetries: 4, delayMs: 1000 });
    expect([retries[0]?.error.kind, retries[0]?.error.status]).toEqual(["rate_limit", 429]);
  });

  it("retries a 529 overloaded answer", async () => {
    mock.enqueue(reply.error(529), reply.text("ok"));
    const retries: RetryInfo[] = [];
    const events = await collect(
      streamWithRetry(anthropic, request, { retry: { baseDelayMs: 10 }, onRetry: (i) => retries.push(i) }),
    );
    expect(finalMessage(events)?.stop_reason).toBe("end_turn");
    expect(retries.map((r) => r.error.kind)).toEqual(["overloaded"]);
    expect(retries[0]?.delayMs).toBeGreaterThanOrEqual(5);
    expect(retries[0]?.delayMs).toBeLessThanOrEqual(10);
  });

  it("fails after three 500s when maxRetries is 2", async () => {
    mock.enqueue(reply.error(500), reply.error(500), reply.error(500));
    const e = await failure(streamWithRetry(openai, request, { retry: { maxRetries: 2, baseDelayMs: 10 } }));
    expect([e.kind, e.status, e.provider]).toEqual(["server", 500, "openai"]);
    expect(mock.requests).toHaveLength(3);
  });

  it("ends promptly when aborted during the backoff wait", async () => {
    mock.enqueue(reply.error(429, { headers: { "retry-after": "30" } }));
    const controller = new AbortController();
    let abortedAt = 0;
    const e = await failure(
      streamWithRetry(anthropic, request, {
        signal: controller.signal,
        retry: { maxDelayMs: 60_000 },
        onRetry: () =>
          setTimeout(() => {
            abortedAt = performance.now();
            controller.abort();
          }, 50),
      }),
    );
    const afterAbort = performance.now() - abortedAt;
    expect(e.kind).toBe("aborted");
    expect(abortedAt).toBeGreaterThan(0);
    expect(afterAbort).toBeLessThan(300); // ~0 ms unloaded; generous for a busy 2-core machine
    expect(mock.requests).toHaveLength(1);
  });

  it("surfaces a stream dropped after the first delta instead of silently retrying it", async () => {
    // message_start, ping, content_block_start, one content_block_delta, then the connection is destroyed.
    mock.enqueue(reply.text("a long answer cut short", { dropAfterEvents: 4, chunkSize: 4 }));
    const seen: StreamEvent[] = [];
    let caught: unknown;
    try {
      for await (const ev of streamWithRetry(anthropic, request, { retry: { baseDelayMs: 10 } }))
        seen.push(ev);
    } catch (e) {
      caught = e;
    }
    expect(isProviderError(caught) && caught.kind).toBe("stream");
    expect(
      seen.filter((e) => e.type === "text_delta").map((e) => e.type === "text_delta" && e.delta),
    ).toEqual(["a lo"]);
    expect(mock.requests).toHaveLength(1);
  });

  it("surfaces an overloaded_error that arrives after content, though overload is otherwise retried", async () => {
    mock.enqueue(
      reply.text("partial answer", {
        streamError: { type: "overloaded_error", message: "Overloaded", afterEvents: 4 },
      }),
    );
    const e = await failure(streamWithRetry(anthropic, request, { retry: { baseDelayMs: 10 } }));
    expect([e.kind, e.afterFirstDelta]).toEqual(["overloaded", true]);
    expect(mock.requests).toHaveLength(1);
  });

  it("retries an overloaded_error that arrives in the stream before any content, without a second message_start", async () => {
    mock.enqueue(
      reply.text("unused", {
        streamError: { type: "overloaded_error", message: "Overloaded", afterEvents: 1 },
      }),
      reply.text("second try"),
    );
    const retries: RetryInfo[] = [];
    const events = await collect(
      streamWithRetry(anthropic, request, { retry: { baseDelayMs: 10 }, onRetry: (i) => retries.push(i) }),
    );
    expect(retries.map((r) => r.error.kind)).toEqual(["overloaded"]);
    expect(events.filter((e) => e.type === "message_start")).toHaveLength(1);
    expect(finalMessage(events)?.content).toEqual([{ type: "text", text: "second try" }]);
    expect(mock.requests).toHaveLength(2);
  });

  it("does not retry a 200 answer that is not an event stream: the base URL is wrong, not the network", async () => {
    // It was retried as a dropped stream: five requests and about 15 s before the clear message.
    // (A retry would get the mock's default answer.)
    mock.enqueue(reply.raw('{"ok":false}', { headers: { "content-type": "application/json" } }));
    const e = await failure(streamWithRetry(anthropic, request, { retry: { baseDelayMs: 10 } }));
    expect(e.kind).toBe("invalid_request");
    expect(e.message).toContain("answered application/json, not an event stream");
    expect(mock.requests).toHaveLength(1);
  });

  it.each(["anthropic", "openai"] as const)("does not retry a %s context overflow", async (which) => {
    mock.enqueue(reply.overflow());
    const provider = which === "anthropic" ? anthropic : openai;
    const e = await failure(streamWithRetry(provider, request, { retry: { baseDelayMs: 10 } }));
    expect(e.kind).toBe("context_overflow");
    expect(mock.requests).toHaveLength(1);
  });
});
