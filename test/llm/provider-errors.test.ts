/** Typed errors from real HTTP answers, dropped and malformed streams, and aborts, for both providers. */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { accumulate } from "../../src/llm/accumulate.js";
import { createAnthropicProvider } from "../../src/llm/anthropic.js";
import { isProviderError, type ProviderError } from "../../src/llm/errors.js";
import { createOpenAIProvider } from "../../src/llm/openai.js";
import type { ModelRequest, Provider, ProviderOptions, StreamEvent } from "../../src/llm/types.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());

type Make = (options?: ProviderOptions) => Provider;
const providers: Array<[string, Make]> = [
  ["anthropic", (o) => createAnthropicProvider({ baseURL: mock.anthropicBaseURL, apiKey: "k", ...o })],
  ["openai", (o) => createOpenAIProvider({ baseURL: mock.openaiBaseURL, apiKey: "k", ...o })],
];

const ask = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  model: "m-1",
  messages: [{ role: "user", content: "hello" }],
  ...over,
});

async function failure(run: Promise<unknown>): Promise<ProviderError> {
  const err = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isProviderError(err)) throw new Error(`expected a ProviderError, got ${String(err)}`);
  return err;
}

describe.each(providers)("%s provider errors", (name, make) => {
  let provider: Provider;
  beforeEach(() => {
    provider = make();
  });

  it("turns a 429 with retry-after into rate_limit with the delay in ms", async () => {
    mock.enqueue(reply.error(429, { headers: { "retry-after": "1" } }));
    const err = await failure(accumulate(provider.stream(ask())));
    expect(err).toMatchObject({ kind: "rate_limit", status: 429, retryAfterMs: 1000, provider: name });
    expect(err.message).toContain(`${name} API error 429`);
    expect(err.message).toContain("per-minute rate limit");
  });

  it("reads retry-after-ms in preference to retry-after", async () => {
    mock.enqueue(reply.error(429, { headers: { "retry-after-ms": "250", "retry-after": "9" } }));
    expect((await failure(accumulate(provider.stream(ask())))).retryAfterMs).toBe(250);
  });

  it.each([
    [529, "overloaded"],
    [500, "server"],
    [503, "server"],
    [401, "authentication"],
    [403, "authentication"],
    [404, "not_found"],
    [400, "invalid_request"],
  ] as const)("maps HTTP %i to kind %s", async (status, kind) => {
    mock.enqueue(reply.error(status));
    const err = await failure(accumulate(provider.stream(ask())));
    expect(err.kind).toBe(kind);
    expect(err.status).toBe(status);
    expect(err.afterFirstDelta).toBe(false);
  });

  it("tells the user to check the key on 401, quoting the provider's message", async () => {
    mock.enqueue(reply.error(401, { message: "invalid x-api-key" }));
    const err = await failure(accumulate(provider.stream(ask())));
    expect(err.message).toMatch(/invalid x-api-key/);
    expect(err.message).toMatch(/check the API key/);
  });

  it("recognizes the provider's own context-overflow wording", async () => {
    mock.enqueue(reply.overflow());
    const err = await failure(accumulate(provider.stream(ask())));
    expect(err.kind).toBe("context_overflow");
    expect(err.message).toMatch(name === "anthropic" ? /prompt is too long/ : /maximum context length/);
  });

  it("reports a refused connection as a network error naming the address", async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const base = name === "anthropic" ? `http://127.0.0.1:${port}` : `http://127.0.0.1:${port}/v1`;
    const err = await failure(accumulate(make({ baseURL: base }).stream(ask())));
    expect(err.kind).toBe("network");
    expect(err.message).toContain(`127.0.0.1:${port}`);
    expect(err.message).toContain("ECONNREFUSED");
  });

  it("reports a connection closed before any answer as a network error", async () => {
    mock.enqueue(reply.hangup());
    expect((await failure(accumulate(provider.stream(ask())))).kind).toBe("network");
  });

  it("fails with kind stream and afterFirstDelta when the stream drops after the first delta", async () => {
    mock.enqueue(reply.text("a long answer that will be cut", { chunkSize: 4, dropAfterEvents: 5 }));
    const events: StreamEvent[] = [];
    const err = await failure(accumulate(provider.stream(ask()), (e) => events.push(e)));
    expect(err.kind).toBe("stream");
    expect(err.afterFirstDelta).toBe(true);
    expect(events.some((e) => e.type === "text_delta")).toBe(true);
    expect(events.some((e) => e.type === "message_end")).toBe(false);
  });

  it("fails with afterFirstDelta false when the stream drops before any content", async () => {
    mock.enqueue(reply.text("never seen", { dropAfterEvents: 1 }));
    const err = await failure(accumulate(provider.stream(ask())));
    expect(err).toMatchObject({ kind: "stream", afterFirstDelta: false });
  });

  it("fails with kind stream on a malformed chunk, quoting it", async () => {
    mock.enqueue(reply.text("abcdefgh", { malformedAfterEvents: 3 }));
    const err = await failure(accumulate(provider.stream(ask())));
    expect(err.kind).toBe("stream");
    expect(err.message).toContain("{broken");
  });

  it("fails on a raw body that is not JSON at all", async () => {
    mock.enqueue(reply.raw("data: {broken\n\n"));
    expect((await failure(accumulate(provider.stream(ask())))).kind).toBe("stream");
  });

  it("turns an overloaded error inside the stream into kind overloaded", async () => {
    mock.enqueue(reply.streamError("overloaded_error", "Overloaded", { text: "partial" }));
    const err = await failure(accumulate(provider.stream(ask())));
    expect(err).toMatchObject({ kind: "overloaded", afterFirstDelta: true });
    expect(err.message).toContain("Overloaded");
  });

  it("aborts mid-stream promptly with kind aborted", async () => {
    mock.enqueue(reply.text("slow words arriving one by one", { chunkSize: 2, delayMs: 40 }));
    const controller = new AbortController();
    const started = Date.now();
    let abortedAt = 0;
    const run = accumulate(provider.stream(ask({ signal: controller.signal })), (e) => {
      if (e.type === "text_delta" && abortedAt === 0) {
        abortedAt = Date.now();
        controller.abort();
      }
    });
    const err = await failure(run);
    expect(err.kind).toBe("aborted");
    // The full answer would take ~1.3 s; the abort must not wait for it.
    expect(Date.now() - abortedAt).toBeLessThan(500);
    expect(Date.now() - started).toBeLessThan(1200);
  });

  it("fails at once with kind aborted when the signal already fired", async () => {
    const controller = new AbortController();
    controller.abort();
    expect((await failure(accumulate(provider.stream(ask({ signal: controller.signal }))))).kind).toBe(
      "aborted",
    );
  });

  it("does not start a second call from a failed one: the next call gets a fresh answer", async () => {
    mock.enqueue(reply.text("cut", { dropAfterEvents: 4 }), reply.text("fine"));
    await failure(accumulate(provider.stream(ask())));
    const message = await accumulate(provider.stream(ask()));
    expect(message.content).toEqual([{ type: "text", text: "fine" }]);
  });
});

describe("mock provider", () => {
  it("fails loudly with a 500 when the test made more calls than it scripted", async () => {
    const err = await failure(
      accumulate(createAnthropicProvider({ baseURL: mock.anthropicBaseURL, apiKey: "k" }).stream(ask())),
    );
    expect(err.status).toBe(500);
    expect(err.message).toContain("mock queue empty");
  });
});
