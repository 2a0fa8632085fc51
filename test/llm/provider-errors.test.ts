/** Typed errors from real HTTP answers, dropped and malformed streams, and aborts, for both providers. */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
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

  it("names a base URL that is not an http(s) URL (a missing scheme is a common slip)", async () => {
    for (const base of ["127.0.0.1:4000", "not a url", "ftp://127.0.0.1:4000"]) {
      const err = await failure(accumulate(make({ baseURL: base }).stream(ask())));
      expect(err.kind).toBe("invalid_request");
      expect(err.message).toContain(`"${base}`);
      expect(err.message).toContain("not an http or https URL");
    }
  });

  it("reports a connection closed before any answer as a network error that says what happened", async () => {
    mock.enqueue(reply.hangup());
    const err = await failure(accumulate(provider.stream(ask())));
    expect(err.kind).toBe("network");
    expect(err.message).toMatch(/accepted the connection, then closed it before answering/);
    expect(err.message).not.toMatch(/could not reach/);
  });

  it("says after how many events a dropped stream was cut", async () => {
    mock.enqueue(reply.text("a long answer that will be cut", { chunkSize: 4, dropAfterEvents: 5 }));
    const err = await failure(accumulate(provider.stream(ask())));
    expect(err.message).toMatch(/after 5 events/);
    expect(err.message).not.toMatch(/could not reach/);
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

  it("says when a 200 answer is not an event stream (a gateway answering JSON), naming its type", async () => {
    // It said only "the connection closed after 0 events", as if the network had failed.
    mock.enqueue(reply.raw('{"ok":false}', { headers: { "content-type": "application/json" } }));
    const err = await failure(accumulate(provider.stream(ask())));
    expect(err.kind).toBe("invalid_request");
    expect(err.message).toContain("answered application/json, not an event stream");
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
    const run = accumulate(provider.stream(ask({ signal: controller.signal })), (e) => {
      if (e.type === "text_delta" && !controller.signal.aborted) controller.abort();
    });
    const err = await failure(run);
    expect(err.kind).toBe("aborted");
    // The abort did not wait for the rest of the answer (about 1.3 s of slow chunks): the client closed
    // the connection while the mock was still sending. Had it read to the end, the answer would have
    // finished and never been marked abandoned. (No clock: the wait is only for the mock to see it.)
    const sent = mock.requests.at(-1)!;
    await vi.waitFor(() => expect(sent.abandoned).toBe(true), { timeout: 5_000 });
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

describe("malformed and id-less streams", () => {
  const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
  const chunk = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;

  it("fails an Anthropic stream whose deltas come before their content_block_start, instead of dropping the text", async () => {
    mock.enqueue(
      reply.raw(
        sse("message_start", { type: "message_start", message: { id: "m", usage: { input_tokens: 1 } } }) +
          sse("content_block_delta", {
            type: "content_block_delta",
            index: 0,
            delta: { type: "text_delta", text: "lost?" },
          }) +
          sse("content_block_start", {
            type: "content_block_start",
            index: 0,
            content_block: { type: "text", text: "" },
          }) +
          sse("content_block_stop", { type: "content_block_stop", index: 0 }) +
          sse("message_stop", { type: "message_stop" }),
      ),
    );
    const provider = createAnthropicProvider({ baseURL: mock.anthropicBaseURL, apiKey: "k" });
    const err = await failure(accumulate(provider.stream(ask())));
    expect(err).toMatchObject({ kind: "stream", afterFirstDelta: false });
    expect(err.message).toMatch(/text_delta for block 0 arrived before that block's content_block_start/);
  });

  it("ignores deltas of server-tool blocks it skips", async () => {
    mock.enqueue(
      reply.raw(
        sse("message_start", { type: "message_start", message: { id: "m", usage: { input_tokens: 1 } } }) +
          sse("content_block_start", {
            type: "content_block_start",
            index: 0,
            content_block: { type: "server_tool_use", id: "s1", name: "web_search", input: {} },
          }) +
          sse("content_block_delta", {
            type: "content_block_delta",
            index: 0,
            delta: { type: "input_json_delta", partial_json: "{}" },
          }) +
          sse("content_block_stop", { type: "content_block_stop", index: 0 }) +
          sse("content_block_start", {
            type: "content_block_start",
            index: 1,
            content_block: { type: "text", text: "" },
          }) +
          sse("content_block_delta", {
            type: "content_block_delta",
            index: 1,
            delta: { type: "text_delta", text: "found it" },
          }) +
          sse("content_block_stop", { type: "content_block_stop", index: 1 }) +
          sse("message_stop", { type: "message_stop" }),
      ),
    );
    const provider = createAnthropicProvider({ baseURL: mock.anthropicBaseURL, apiKey: "k" });
    const message = await accumulate(provider.stream(ask()));
    expect(message.content).toEqual([{ type: "text", text: "found it" }]);
  });

  it("keeps parallel OpenAI-compatible tool calls apart when the gateway sends no ids, by index", async () => {
    const call = (index: number, fn: object) => ({
      id: "c",
      choices: [{ index: 0, delta: { tool_calls: [{ index, type: "function", function: fn }] } }],
    });
    mock.enqueue(
      reply.raw(
        chunk({ id: "c", choices: [{ index: 0, delta: { role: "assistant" } }] }) +
          chunk(call(0, { name: "Read", arguments: '{"file_path":' })) +
          chunk(call(1, { name: "Glob", arguments: '{"pattern":' })) +
          chunk(call(0, { arguments: '"/a"}' })) +
          chunk(call(1, { arguments: '"*.ts"}' })) +
          chunk({ id: "c", choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] }) +
          "data: [DONE]\n\n",
      ),
    );
    const provider = createOpenAIProvider({ baseURL: mock.openaiBaseURL, apiKey: "k" });
    const message = await accumulate(provider.stream(ask()));
    const calls = message.content.filter((b) => b.type === "tool_use");
    expect(calls).toHaveLength(2);
    expect(calls.map((c) => [c.name, c.input])).toEqual([
      ["Read", { file_path: "/a" }],
      ["Glob", { pattern: "*.ts" }],
    ]);
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);
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
