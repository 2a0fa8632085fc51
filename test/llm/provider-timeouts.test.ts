/**
 * Stalled providers end in a typed `timeout` error instead of hanging: a server that never completes
 * the TLS handshake (connect), one that takes the request and never answers (first byte), one that goes
 * silent mid-stream (idle). A slow stream whose events keep coming is never cut, and a stall before
 * any content is retried. Real sockets on 127.0.0.1, small limits.
 */
import http from "node:http";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { accumulate } from "../../src/llm/accumulate.js";
import { createAnthropicProvider } from "../../src/llm/anthropic.js";
import { isProviderError, type ProviderError } from "../../src/llm/errors.js";
import { createOpenAIProvider } from "../../src/llm/openai.js";
import { streamWithRetry } from "../../src/llm/retry.js";
import type { ModelRequest } from "../../src/llm/types.js";
import { query } from "../../src/sdk/query.js";
import type { SDKResultMessage } from "../../src/sdk/sdk-messages.js";
import { reply } from "../support/mock-provider.js";
import { anthropicEvents, openaiEvents } from "../support/mock-wire.js";

const closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** An HTTP server on 127.0.0.1 answering each request with `handler` (the n-th request is `n`, from 1). */
async function serve(handler: (res: http.ServerResponse, n: number) => void): Promise<string> {
  let n = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => handler(res, ++n));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

const ask: ModelRequest = { model: "m-1", messages: [{ role: "user", content: "hi" }] };
const events = anthropicEvents(reply.text("slow but steady answer", { chunkSize: 4 }), "m-1");

async function failure(run: Promise<unknown>): Promise<{ error: ProviderError; at: number }> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isProviderError(error)) throw new Error(`expected a ProviderError, got ${String(error)}`);
  return { error, at: performance.now() };
}

describe("provider timeouts", () => {
  it("fails with a timeout when the server takes the request and never answers", async () => {
    const base = await serve(() => {}); // headers never come
    const provider = createAnthropicProvider({ baseURL: base, apiKey: "k", timeouts: { firstByteMs: 200 } });
    const started = performance.now();
    const { error, at } = await failure(accumulate(provider.stream(ask)));
    expect(error.kind).toBe("timeout");
    expect(error.afterFirstDelta).toBe(false);
    expect(error.message).toMatch(/sent no answer within 200 ms/);
    expect(error.message).toContain("GOAT_FIRST_BYTE_TIMEOUT_MS");
    expect(at - started).toBeGreaterThanOrEqual(190);
    expect(at - started).toBeLessThan(1500);
  });

  it("fails with a timeout when the stream goes silent after its first event, soon after the stall", async () => {
    let stalledAt = 0;
    const base = await serve((res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(events[0], () => {
        stalledAt = performance.now();
      });
    });
    const provider = createAnthropicProvider({ baseURL: base, apiKey: "k", timeouts: { idleMs: 250 } });
    const { error, at } = await failure(accumulate(provider.stream(ask)));
    expect(error.kind).toBe("timeout");
    expect(error.afterFirstDelta).toBe(false); // message_start only: safe to retry
    expect(error.message).toMatch(/stalled: no data for 250 ms after 1 event/);
    const sinceStall = at - stalledAt;
    expect(sinceStall).toBeGreaterThanOrEqual(240);
    expect(sinceStall).toBeLessThan(1000);
  });

  it("marks a stall after content as afterFirstDelta (OpenAI wire)", async () => {
    const chunks = openaiEvents(reply.text("partial answer here", { chunkSize: 4 }), "m-1", false);
    const base = await serve((res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(chunks.slice(0, 3).join(""));
    });
    const provider = createOpenAIProvider({ baseURL: base, apiKey: "k", timeouts: { idleMs: 200 } });
    const { error } = await failure(accumulate(provider.stream(ask)));
    expect(error.kind).toBe("timeout");
    expect(error.afterFirstDelta).toBe(true);
  });

  it("never cuts a slow stream whose events keep coming", async () => {
    const base = await serve((res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      let i = 0;
      const tick = setInterval(() => {
        if (res.destroyed) return clearInterval(tick);
        res.write(events[i++]);
        if (i === events.length) {
          clearInterval(tick);
          res.end();
        }
      }, 60);
    });
    const provider = createAnthropicProvider({
      baseURL: base,
      apiKey: "k",
      timeouts: { idleMs: 200, firstByteMs: 200 },
    });
    const started = performance.now();
    const message = await accumulate(provider.stream(ask));
    expect(message.content).toEqual([{ type: "text", text: "slow but steady answer" }]);
    // The whole answer took several idle limits: only silence counts, not length.
    expect(performance.now() - started).toBeGreaterThan(3 * 200);
  });

  it("fails with a connect timeout when the TLS handshake never completes", async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => sockets.push(socket)); // accepts TCP, never speaks TLS
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    closers.push(() => {
      for (const s of sockets) s.destroy();
      silent.close();
    });
    const port = (silent.address() as net.AddressInfo).port;
    const provider = createAnthropicProvider({
      baseURL: `https://127.0.0.1:${port}`,
      apiKey: "k",
      timeouts: { connectMs: 200 },
    });
    const started = performance.now();
    const { error, at } = await failure(accumulate(provider.stream(ask)));
    expect(error.kind).toBe("timeout");
    expect(error.message).toMatch(/could not connect to https:\/\/127\.0\.0\.1:\d+ within 200 ms/);
    expect(at - started).toBeLessThan(1500);
  });

  it("retries a call that stalled before any content, and the retry's answer arrives", async () => {
    const base = await serve((res, n) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      if (n === 1)
        res.write(events[0]); // message_start, then silence
      else res.end(events.join(""));
    });
    const provider = createAnthropicProvider({ baseURL: base, apiKey: "k", timeouts: { idleMs: 150 } });
    const retries: string[] = [];
    const message = await accumulate(
      streamWithRetry(provider, ask, {
        retry: { baseDelayMs: 1, maxDelayMs: 5 },
        onRetry: (info) => retries.push(info.error.kind),
      }),
    );
    expect(message.content).toEqual([{ type: "text", text: "slow but steady answer" }]);
    expect(retries).toEqual(["timeout"]);
  });

  it("reads the limits from the environment it is given, and refuses a bad value by name", async () => {
    const base = await serve(() => {});
    const provider = createOpenAIProvider({
      baseURL: base,
      apiKey: "k",
      env: { GOAT_FIRST_BYTE_TIMEOUT_MS: "150" },
    });
    const { error } = await failure(accumulate(provider.stream(ask)));
    expect(error.kind).toBe("timeout");
    expect(error.message).toMatch(/within 150 ms/);
    expect(() =>
      createOpenAIProvider({ baseURL: base, env: { GOAT_STREAM_IDLE_TIMEOUT_MS: "soon" } }),
    ).toThrow(/GOAT_STREAM_IDLE_TIMEOUT_MS must be a number of milliseconds ≥ 0.*"soon"/);
  });

  it("applies query()'s providerTimeouts and reports each retry before ending with the timeout", async () => {
    const base = await serve(() => {});
    const messages = [];
    for await (const m of query({
      prompt: "hi",
      options: {
        model: "anthropic/claude-sonnet-4-5",
        provider: { type: "anthropic", baseURL: base, apiKey: "k" },
        providerTimeouts: { firstByteMs: 100 },
        retry: { maxRetries: 1, baseDelayMs: 1 },
        persistSession: false,
        tools: [],
      },
    }))
      messages.push(m);
    const retries = messages.filter((m) => m.type === "system" && m.subtype === "api_retry");
    expect(retries).toHaveLength(1);
    const result = messages.at(-1) as SDKResultMessage;
    expect(result.subtype).toBe("error_during_execution");
    expect(JSON.stringify(result)).toMatch(/timeout.*sent no answer within 100 ms/);
  });
});
