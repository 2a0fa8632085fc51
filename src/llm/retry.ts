/**
 * The one retry strategy of the LLM layer, shared by every provider and the fallback model: exponential backoff
 * with jitter for rate limits, overload, 5xx and network errors, honouring the server's `retry-after` up
 * to a cap. Providers never retry on their own, so this is the only place a call is repeated.
 *
 * A stream is retried only while nothing of the answer has reached the caller. Events that carry no
 * content (`message_start`, `usage`) are held back until the first content event, so an error right
 * after the provider accepted the call (Anthropic's mid-stream `overloaded_error`) is still retried and
 * the caller never sees a duplicated `message_start`. After the first content event, any error is
 * surfaced as is.
 */

import { isProviderError, isRetryableKind, ProviderError } from "./errors.js";
import type { ModelRequest, Provider, StreamEvent } from "./types.js";

/** How hard to retry. */
export interface RetryOptions {
  /** Retries after the first attempt (so at most maxRetries + 1 calls). Default 4. */
  maxRetries?: number;
  /** Delay before the first retry; doubles each time. Default 1000 ms. */
  baseDelayMs?: number;
  /** Cap on any single wait, including a server's `retry-after`. Default 32000 ms. */
  maxDelayMs?: number;
  /** Randomize each backoff between half and all of it, so many clients do not retry in step. Default true. */
  jitter?: boolean;
  /**
   * Retries of a stalled call (no answer within the `providerTimeouts` limits), within `maxRetries`.
   * Default 1: each stall costs a whole limit (60 s by default), and a server that stalled twice rarely
   * answers the third time, so a stall fails in about two minutes rather than five.
   */
  maxStallRetries?: number;
}

/** What the caller is told before each wait, so a UI can show "retrying in 4 s (overloaded)". */
export interface RetryInfo {
  /** 1 for the first retry. */
  attempt: number;
  maxRetries: number;
  delayMs: number;
  /** The error that caused this retry. */
  error: ProviderError;
}

/** Options of `streamWithRetry`. */
export interface StreamWithRetryOptions {
  retry?: RetryOptions;
  /** Aborts the call and any backoff wait; combined with `request.signal` when both are given. */
  signal?: AbortSignal;
  /** Called before each backoff wait. */
  onRetry?: (info: RetryInfo) => void;
}

const DEFAULTS = {
  maxRetries: 4,
  baseDelayMs: 1000,
  maxDelayMs: 32_000,
  jitter: true,
  maxStallRetries: 1,
} as const;

/**
 * Streams `request` through `provider`, retrying transient failures before the first content event.
 * Throws the final `ProviderError` (kind `aborted` when the signal fires, also during a backoff wait).
 * Example: `for await (const ev of streamWithRetry(p, req, { onRetry: show })) …`.
 *
 * A hand-written iterator with a generator's contract (lazy, `return()` closes the provider stream):
 * it sits on every stream event of every turn, where an async generator's `for await` + `yield`
 * costs several microtask turns per event and this costs one (see bench/loop.mjs). Like a
 * `for await` loop, callers must not call `next()` again before the previous call settled.
 */
export function streamWithRetry(
  provider: Provider,
  request: ModelRequest,
  opts: StreamWithRetryOptions = {},
): AsyncGenerator<StreamEvent> {
  const signal = combineSignals(opts.signal, request.signal);
  const call = signal === request.signal ? request : { ...request, signal };
  const maxRetries = Math.max(0, opts.retry?.maxRetries ?? DEFAULTS.maxRetries);
  const maxStallRetries = Math.max(0, opts.retry?.maxStallRetries ?? DEFAULTS.maxStallRetries);
  let attempt = 0;
  let stalls = 0;
  let inner: AsyncIterator<StreamEvent> | undefined;
  /** Events to deliver before reading on: the held ones, then the first content event. */
  let queue: StreamEvent[] = [];
  let queued = 0;
  let committed = false;
  let exhausted = false; // the provider's stream ended; deliver what is queued, then done
  let finished = false;

  const DONE: IteratorResult<StreamEvent> = { value: undefined, done: true };
  const finish = (): IteratorResult<StreamEvent> => {
    finished = true;
    inner = undefined;
    return DONE;
  };
  const fromQueue = (): IteratorResult<StreamEvent> => {
    const value = queue[queued++];
    if (queued === queue.length) {
      queue = [];
      queued = 0;
    }
    return { value, done: false };
  };
  const failCommitted = (thrown: unknown): never => {
    finish();
    throw toProviderError(thrown, provider.name, true, signal);
  };
  const passCommitted = (r: IteratorResult<StreamEvent>): IteratorResult<StreamEvent> =>
    r.done ? finish() : r;

  /** Starts attempts and reads until the first content event, retrying what may be retried. */
  const open = async (): Promise<IteratorResult<StreamEvent>> => {
    for (;;) {
      if (!inner) {
        attempt++;
        if (signal?.aborted) {
          finish();
          throw abortedError(provider.name, "Model call aborted before it was sent.");
        }
        queue = [];
      }
      let r: IteratorResult<StreamEvent>;
      try {
        inner ??= provider.stream(call)[Symbol.asyncIterator]();
        r = await inner.next();
      } catch (thrown) {
        inner = undefined;
        const error = toProviderError(thrown, provider.name, false, signal);
        if (
          error.afterFirstDelta ||
          !isRetryableKind(error.kind) ||
          unknownHost(error) ||
          attempt > maxRetries ||
          (error.kind === "timeout" && ++stalls > maxStallRetries)
        ) {
          finish();
          throw error;
        }
        const delayMs = retryDelayMs(attempt, error, opts.retry);
        opts.onRetry?.({ attempt, maxRetries, delayMs, error });
        try {
          await sleep(delayMs, signal);
        } catch {
          finish();
          throw abortedError(
            provider.name,
            `Model call aborted while waiting ${delayMs} ms to retry after: ${error.message}`,
            error,
          );
        }
        continue;
      }
      if (r.done) {
        // An answer with no content events at all still delivers what was held.
        committed = true;
        exhausted = true;
        return queue.length > 0 ? fromQueue() : finish();
      }
      queue.push(r.value);
      if (r.value.type === "message_start" || r.value.type === "usage") continue;
      committed = true;
      return fromQueue();
    }
  };

  const self: AsyncGenerator<StreamEvent> = {
    next() {
      if (finished) return Promise.resolve(DONE);
      if (queue.length > 0) return Promise.resolve(fromQueue());
      if (exhausted) return Promise.resolve(finish());
      if (committed && inner) return inner.next().then(passCommitted, failCommitted);
      return open();
    },
    async return(value?: unknown) {
      const it = inner;
      finish();
      await it?.return?.();
      return { value: value as undefined, done: true };
    },
    async throw(error?: unknown) {
      const it = inner;
      finish();
      await it?.return?.();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return self;
    },
  };
  return self;
}

/**
 * The wait before retry number `attempt` (1-based): the server's `retry-after` when it sent one,
 * otherwise `baseDelayMs * 2^(attempt-1)` with jitter; never more than `maxDelayMs`.
 */
export function retryDelayMs(
  attempt: number,
  error: Pick<ProviderError, "retryAfterMs">,
  options: RetryOptions = {},
  random: () => number = Math.random,
): number {
  const base = options.baseDelayMs ?? DEFAULTS.baseDelayMs;
  const cap = options.maxDelayMs ?? DEFAULTS.maxDelayMs;
  // The server knows its own load better than our guess, so its delay replaces the backoff.
  if (error.retryAfterMs !== undefined) return Math.min(cap, Math.max(0, Math.ceil(error.retryAfterMs)));
  const exponential = Math.min(cap, base * 2 ** (attempt - 1));
  const jittered = (options.jitter ?? DEFAULTS.jitter) ? exponential * (0.5 + 0.5 * random()) : exponential;
  return Math.round(jittered);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Anything thrown by a provider, as a ProviderError; foreign errors become kind `unknown` (or `aborted`). */
function toProviderError(
  thrown: unknown,
  provider: string,
  afterFirstDelta: boolean,
  signal: AbortSignal | undefined,
): ProviderError {
  if (isProviderError(thrown)) return thrown;
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  return new ProviderError({
    kind: signal?.aborted ? "aborted" : "unknown",
    provider,
    message: `${provider}: ${message}`,
    afterFirstDelta,
    cause: thrown,
  });
}

function abortedError(provider: string, message: string, cause?: unknown): ProviderError {
  return new ProviderError({ kind: "aborted", provider, message, cause });
}

function combineSignals(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  if (!a || a === b) return b;
  if (!b) return a;
  return AbortSignal.any([a, b]);
}

/**
 * A host name that does not exist (DNS answered "no such name", ENOTFOUND) will not exist seconds
 * later: failing at once beats retrying for 15 s. A DNS server that did not answer (EAI_AGAIN) is
 * still retried.
 */
function unknownHost(error: ProviderError): boolean {
  return error.kind === "network" && (error.cause as NodeJS.ErrnoException | undefined)?.code === "ENOTFOUND";
}
