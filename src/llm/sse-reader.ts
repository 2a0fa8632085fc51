/**
 * Reads a provider's 2xx answer as SSE events, a batch at a time, and turns every way the body can go
 * wrong into a typed `ProviderError`: the connection dropping (`stream`, saying after how many events),
 * a silence longer than the idle limit (`timeout`), the caller's abort (`aborted`), a chunk that is not
 * JSON (`stream`).
 */
import type http from "node:http";
import { isProviderError, ProviderError } from "./errors.js";
import { createSseParser, type SseEvent } from "./sse.js";
import { startStallTimer } from "./stall-timer.js";
import { describeMs, TIMEOUT_ENV } from "./timeouts.js";

/**
 * How a response body is cut into events. SSE is the default; a binary framing (AWS event-stream,
 * aws-event-stream.ts) brings its own parser. `push` may throw a `ProviderError` (a corrupt frame, an
 * error the server sent in-band), which ends the read with that error.
 */
export interface Framing {
  /** True when the parser takes raw bytes (`Buffer`); false for text (the body is decoded as UTF-8). */
  readonly binary: boolean;
  /** Creates the parser for one body; `afterFirstDelta` says whether content was already yielded. */
  create(onEvent: (event: SseEvent) => void, afterFirstDelta: () => boolean): FramingParser;
}

/** One body's parser (see `Framing`). */
export interface FramingParser {
  /** A `Buffer` when the framing is `binary`, else a string. */
  push(chunk: string | Buffer): void;
  end(): void;
}

/** Server-Sent Events, the framing of every provider but Bedrock. */
const SSE_FRAMING: Framing = {
  binary: false,
  create: (onEvent) => createSseParser(onEvent),
};

/** Pulls the events of an SSE response, a batch at a time. */
export interface SseReader {
  /** The events parsed since the last call (waiting for the next chunk if none); undefined at the end. */
  next(): Promise<SseEvent[] | undefined>;
  /** Stops reading; destroys the response unless it was read to its end. */
  close(): void;
  /** Events parsed so far (for messages that say how far the answer got). */
  readonly events: number;
}

/**
 * Reads an SSE response. A connection that closes or fails mid-body rejects `next()` with a `stream`
 * error (or `aborted` when `signal` fired); a body silent for `idleMs` (0: never) rejects it with a
 * `timeout` error. `afterFirstDelta` tells whether the caller had already yielded content. Listeners
 * instead of the stream's async iterator, and batches instead of one promise per event: this is the
 * per-token hot path (see bench/provider.mjs).
 */
export function openSse(
  provider: string,
  res: http.IncomingMessage,
  signal: AbortSignal | undefined,
  afterFirstDelta: () => boolean,
  idleMs = 0,
  framing: Framing = SSE_FRAMING,
): SseReader {
  let ready: SseEvent[] = [];
  let done = false;
  let count = 0;
  let failure: ProviderError | undefined;
  let waiter: { resolve: (v: SseEvent[] | undefined) => void; reject: (e: unknown) => void } | undefined;
  const parser = framing.create((e) => {
    count++;
    ready.push(e);
  }, afterFirstDelta);

  const wake = (): void => {
    const w = waiter;
    if (!w) return;
    if (ready.length > 0) {
      waiter = undefined;
      const batch = ready;
      ready = [];
      w.resolve(batch);
    } else if (failure) {
      waiter = undefined;
      w.reject(failure);
    } else if (done) {
      waiter = undefined;
      w.resolve(undefined);
    }
  };
  const settle = (error: ProviderError): void => {
    if (done || failure) return;
    failure = error;
    detach();
    wake();
  };
  const fail = (err: unknown): void => {
    if (done || failure) return;
    settle(
      signal?.aborted
        ? abortedError(provider)
        : streamError(
            provider,
            `the connection dropped after ${count} event${count === 1 ? "" : "s"} of the answer (${(err as Error)?.message ?? err})`,
            afterFirstDelta(),
            err,
          ),
    );
  };
  // One timer for the whole body, pushed back by every chunk: `refresh()` costs no allocation per
  // token. A stall timer, so a chunk that arrived while this process was busy elsewhere still counts.
  const idle =
    idleMs > 0
      ? startStallTimer(idleMs, () => {
          const error = stallError(provider, idleMs, count, afterFirstDelta());
          settle(error);
          res.destroy(error);
        })
      : undefined;
  const onData = (chunk: string | Buffer): void => {
    idle?.refresh();
    try {
      parser.push(chunk);
    } catch (err) {
      // A corrupt frame or an in-band error: the events before it are still delivered first.
      settle(isProviderError(err) ? err : streamError(provider, String(err), afterFirstDelta(), err));
      res.destroy();
    }
    wake();
  };
  const onEnd = (): void => {
    try {
      parser.end();
    } catch (err) {
      settle(isProviderError(err) ? err : streamError(provider, String(err), afterFirstDelta(), err));
      return;
    }
    done = true;
    idle?.clear();
    // The other listeners stay: after the end they do nothing, and a late socket error still finds one.
    signal?.removeEventListener("abort", onAbort);
    wake();
  };
  const onClose = (): void => {
    if (!res.complete) fail(new Error("connection closed"));
  };
  const onAbort = (): void => {
    res.destroy(abortedError(provider));
    fail(abortedError(provider));
  };
  const detach = (): void => {
    idle?.clear();
    res.off("data", onData);
    res.off("end", onEnd);
    res.off("error", fail);
    res.on("error", ignore); // a late socket error after we stopped listening must not crash the process
    res.off("close", onClose);
    signal?.removeEventListener("abort", onAbort);
  };

  if (!framing.binary) res.setEncoding("utf8");
  res.on("data", onData);
  res.on("end", onEnd);
  res.on("error", fail);
  res.on("close", onClose);
  signal?.addEventListener("abort", onAbort, { once: true });

  return {
    next() {
      if (ready.length > 0) {
        const batch = ready;
        ready = [];
        return Promise.resolve(batch);
      }
      if (failure) return Promise.reject(failure);
      if (done) return Promise.resolve(undefined);
      return new Promise((resolve, reject) => {
        waiter = { resolve, reject };
      });
    },
    close() {
      if (!done) {
        detach();
        if (!res.destroyed) res.destroy();
      }
    },
    get events() {
      return count;
    },
  };
}

function ignore(): void {}

/** The error for a call the caller's AbortSignal cancelled. */
export function abortedError(provider: string): ProviderError {
  return new ProviderError({ kind: "aborted", provider, message: `${provider}: request aborted` });
}

/** A `timeout` error for a body that went silent. */
function stallError(
  provider: string,
  idleMs: number,
  events: number,
  afterFirstDelta: boolean,
): ProviderError {
  return new ProviderError({
    kind: "timeout",
    provider,
    afterFirstDelta,
    message: `${provider}: the answer stalled: no data for ${describeMs(idleMs)} after ${events} event${events === 1 ? "" : "s"} (raise the limit with ${TIMEOUT_ENV.idleMs} or the providerTimeouts option)`,
  });
}

/** A `stream` error: the answer was cut off or unreadable. */
export function streamError(
  provider: string,
  what: string,
  afterFirstDelta: boolean,
  cause?: unknown,
): ProviderError {
  return new ProviderError({
    kind: "stream",
    provider,
    afterFirstDelta,
    cause,
    message: `${provider}: ${what}${afterFirstDelta ? " after part of the answer was streamed" : ""}`,
  });
}

/**
 * Parses one SSE `data:` payload, turning bad JSON into a `stream` error. The result is unchecked: each
 * decoder names its wire's event shapes (anthropic-events.ts and its siblings) and guards what it reads.
 */
export function parseData(provider: string, data: string, afterFirstDelta: boolean): unknown {
  try {
    return JSON.parse(data);
  } catch (err) {
    throw streamError(
      provider,
      `malformed stream chunk ${JSON.stringify(data.slice(0, 200))}`,
      afterFirstDelta,
      err,
    );
  }
}
