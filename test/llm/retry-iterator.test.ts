import { describe, expect, it } from "vitest";
import { ProviderError } from "../../src/llm/errors.js";
import { streamWithRetry } from "../../src/llm/retry.js";
import type { ModelRequest, Provider, StreamEvent } from "../../src/llm/types.js";

const request: ModelRequest = { model: "m", messages: [{ role: "user", content: "hi" }] };
const events: StreamEvent[] = [
  { type: "message_start", model: "m" },
  {
    type: "usage",
    usage: { input_tokens: 1, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
  },
  { type: "text_start", index: 0 },
  { type: "text_delta", index: 0, delta: "a" },
  { type: "text_delta", index: 0, delta: "b" },
  { type: "text_end", index: 0, text: "ab" },
];

/** A provider whose stream records whether it was started and closed. */
function tracked(fail?: { after: number; error: unknown }) {
  const log: string[] = [];
  const provider: Provider = {
    name: "fake",
    stream() {
      log.push("stream");
      return (async function* () {
        try {
          for (let i = 0; i < events.length; i++) {
            if (fail && i === fail.after) throw fail.error;
            yield events[i];
          }
        } finally {
          log.push("closed");
        }
      })();
    },
  };
  return { provider, log };
}

describe("streamWithRetry as an iterator", () => {
  it("calls the provider only on the first next(), like a generator", async () => {
    const { provider, log } = tracked();
    const it = streamWithRetry(provider, request);
    expect(log).toEqual([]);
    expect((await it.next()).value).toEqual(events[0]);
    expect(log).toEqual(["stream"]);
  });

  it("closes the provider's stream when the caller stops early", async () => {
    const { provider, log } = tracked();
    const seen: string[] = [];
    for await (const e of streamWithRetry(provider, request)) {
      seen.push(e.type);
      if (e.type === "text_delta") break;
    }
    expect(seen).toEqual(["message_start", "usage", "text_start", "text_delta"]);
    expect(log).toEqual(["stream", "closed"]);
  });

  it("delivers every event in order and then stays done", async () => {
    const { provider } = tracked();
    const it = streamWithRetry(provider, request);
    const seen: StreamEvent[] = [];
    for (;;) {
      const r = await it.next();
      if (r.done) break;
      seen.push(r.value);
    }
    expect(seen).toEqual(events);
    expect(await it.next()).toEqual({ value: undefined, done: true });
  });

  it("wraps a foreign error after content as kind unknown with afterFirstDelta, without retrying", async () => {
    const { provider, log } = tracked({ after: 4, error: new Error("boom") });
    const seen: string[] = [];
    const error = await (async () => {
      try {
        for await (const e of streamWithRetry(provider, request, { retry: { baseDelayMs: 1 } }))
          seen.push(e.type);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).kind).toBe("unknown");
    expect((error as ProviderError).afterFirstDelta).toBe(true);
    expect(seen).toEqual(["message_start", "usage", "text_start", "text_delta"]);
    expect(log.filter((l) => l === "stream")).toHaveLength(1);
  });

  it("retries a provider whose stream() throws synchronously before anything was sent", async () => {
    let calls = 0;
    const provider: Provider = {
      name: "fake",
      stream() {
        calls++;
        if (calls === 1) throw new ProviderError({ kind: "network", provider: "fake", message: "down" });
        return (async function* () {
          yield* events;
        })();
      },
    };
    const seen: StreamEvent[] = [];
    for await (const e of streamWithRetry(provider, request, { retry: { baseDelayMs: 1, jitter: false } }))
      seen.push(e);
    expect(calls).toBe(2);
    expect(seen).toEqual(events);
  });
});
