/**
 * The driver every provider shares: POST the request, read the SSE answer in batches, feed each event to
 * the provider's wire decoder and yield the neutral events it produces. The decoders are synchronous
 * state machines, so one streamed token costs one async hop (this generator), not one per layer.
 */
import type http from "node:http";
import { isProviderError, ProviderError } from "./errors.js";
import type { HttpTransport } from "./http.js";
import type { SseEvent } from "./sse.js";
import { openSse, type SseReader, streamError } from "./sse-reader.js";
import type { ModelRequest, StreamEvent } from "./types.js";

/** Turns one provider's SSE events into neutral stream events. */
export interface WireDecoder {
  /** Handles one SSE event, pushing the events it completes onto `out`. Throws a ProviderError on bad input. */
  onEvent(sse: SseEvent, out: StreamEvent[]): void;
  /** Called when the body ended; pushes the closing events, or returns false if the answer was incomplete. */
  finish(out: StreamEvent[]): boolean;
  /** True once message_end was pushed; later events only drain the body so the socket can be reused. */
  readonly ended: boolean;
  /** True once any content delta was pushed. */
  readonly afterFirstDelta: boolean;
}

/** What to send: resolved per call, so keys and base URLs are read at call time. */
export interface WireCall {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * Reads a 2xx answer as events (default: SSE, `openSse`). A wire with another framing (AWS event
 * stream) gives its own reader that turns each frame into an `SseEvent`-shaped `{ event, data }`;
 * `request` is the call's, for a wire whose framing differs by model (Bedrock's).
 */
export type BodyOpener = (
  provider: string,
  res: http.IncomingMessage,
  signal: AbortSignal | undefined,
  afterFirstDelta: () => boolean,
  idleMs: number,
  request: ModelRequest,
) => SseReader;

/** One streamed call: what `streamCall` needs besides the transport. */
export interface StreamCallParts {
  /** Builds the request (synchronously unless a key must be awaited). */
  prepare: () => WireCall | Promise<WireCall>;
  /** Reads the answer. */
  decoder: WireDecoder;
  /** Reads the body as events; default SSE. */
  openBody?: BodyOpener;
  /**
   * Called once when the server refused the credentials (401/403): builds the request again with a
   * fresh credential, or answers undefined when there is none newer (the refusal then stands).
   */
  refresh?: () => Promise<WireCall | undefined>;
}

/**
 * Runs one streamed call: `prepare` builds the request, `decoder` reads the answer. Nothing is sent
 * until the first `next()`. A hand-written iterator rather than an async generator: a generator's
 * `yield` costs several microtask turns per token, this costs one resolved promise while events are
 * buffered (bench/provider.mjs measures the difference).
 */
export function streamCall(
  provider: string,
  transport: HttpTransport,
  request: ModelRequest,
  parts: StreamCallParts,
): AsyncIterableIterator<StreamEvent> {
  const { prepare, decoder, refresh } = parts;
  const openBody = parts.openBody;
  let out: StreamEvent[] = [];
  let pos = 0;
  let reader: SseReader | undefined;
  let started = false;
  let finished = false;
  let failure: unknown; // thrown once the events decoded before it have been delivered
  let contentType = "";

  const close = (): void => {
    finished = true;
    reader?.close();
  };

  /** Reads until at least one event is buffered, the answer ended, or it failed. */
  const fill = async (): Promise<void> => {
    if (!started) {
      started = true;
      const call = prepare();
      // Most calls are prepared synchronously (no getApiKey): no promise turn for them.
      const { url, headers, body } = call instanceof Promise ? await call : call;
      let res: http.IncomingMessage;
      try {
        res = await transport.post(url, headers, body, request.signal);
      } catch (err) {
        // An expired credential (an Entra ID or OAuth token) is asked for again once, as Claude Code
        // re-runs its apiKeyHelper on a 401; the request never reached the model, so nothing repeats.
        const again =
          refresh && isProviderError(err) && err.kind === "authentication" ? await refresh() : undefined;
        if (!again) throw err;
        res = await transport.post(again.url, again.headers, again.body, request.signal);
      }
      contentType = String(res.headers["content-type"] ?? "");
      const afterFirstDelta = () => decoder.afterFirstDelta;
      const idleMs = transport.timeouts.idleMs;
      reader = openBody
        ? openBody(provider, res, request.signal, afterFirstDelta, idleMs, request)
        : openSse(provider, res, request.signal, afterFirstDelta, idleMs);
    }
    out = [];
    pos = 0;
    while (out.length === 0) {
      let batch: SseEvent[] | undefined;
      try {
        batch = await reader!.next();
      } catch (err) {
        if (decoder.ended) return close(); // the answer was complete; a broken drain lost nothing
        throw err;
      }
      if (batch === undefined) {
        if (!decoder.ended && !decoder.finish(out)) {
          const n = reader!.events;
          // A gateway that answers 200 with JSON (an error, or a non-streamed answer) is no dropped
          // connection: say what came instead, so the user checks the base URL rather than the network.
          // Not retried (invalid_request): asking the same URL again gets the same answer.
          if (n === 0 && contentType !== "" && !/event-?stream/i.test(contentType)) {
            throw new ProviderError({
              kind: "invalid_request",
              provider,
              message: `${provider}: the server answered ${contentType}, not an event stream; check that the base URL serves ${provider}'s streaming API`,
            });
          }
          throw streamError(
            provider,
            `the connection closed after ${n} event${n === 1 ? "" : "s"}, before the answer finished`,
            decoder.afterFirstDelta,
          );
        }
        return close();
      }
      for (let i = 0; i < batch.length && !decoder.ended; i++) {
        try {
          decoder.onEvent(batch[i], out);
        } catch (err) {
          failure = err;
          return;
        }
      }
    }
  };

  const slowNext = async (): Promise<IteratorResult<StreamEvent>> => {
    if (failure !== undefined || finished) return end();
    try {
      await fill();
    } catch (err) {
      close();
      throw err;
    }
    if (pos < out.length) return { value: out[pos++], done: false };
    return end();
  };

  const end = (): IteratorResult<StreamEvent> => {
    close();
    if (failure !== undefined) {
      const err = failure;
      failure = undefined;
      throw err;
    }
    return { value: undefined, done: true };
  };

  const iterator: AsyncIterableIterator<StreamEvent> = {
    next() {
      if (pos < out.length) return Promise.resolve({ value: out[pos++], done: false });
      return slowNext();
    },
    return() {
      failure = undefined;
      close();
      return Promise.resolve({ value: undefined, done: true });
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
