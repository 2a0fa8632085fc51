/**
 * Backpressure for the SDK message stream: a host that reads `query()` slowly must not make Goat
 * buffer a whole streamed answer (with `includePartialMessages`, one message per delta). While more
 * than `HIGH_WATER` messages wait, the model's stream is not read further, until the host has taken
 * the buffer down to `LOW_WATER`; the unread answer then waits in the socket, and TCP slows the
 * provider down. A fast reader pays one size check per stream event.
 */

import type { ModelCaller } from "../loop/loop-config.js";
import type { AsyncQueue } from "./async-queue.js";

/** Messages waiting for the host before the model's stream is paused. */
export const HIGH_WATER = 1024;
/** Messages left waiting when the stream is read again. */
export const LOW_WATER = 256;

/** Wraps `call` so its streams pause while `output` holds more than `HIGH_WATER` messages. */
export function pacedByReader(call: ModelCaller, output: AsyncQueue<unknown>): ModelCaller {
  return (model, request, ...rest) => {
    // Every further argument (onRetry, onFallback, …) goes through unchanged.
    const stream = call(model, request, ...rest);
    return {
      [Symbol.asyncIterator]() {
        const inner = stream[Symbol.asyncIterator]();
        const waitForReader = () =>
          new Promise<void>((resolve) => {
            const signal = request.signal;
            // An abort (interrupt, close) must not wait for a reader that may never come.
            if (signal?.aborted) return resolve();
            const onAbort = () => resolve();
            signal?.addEventListener("abort", onAbort, { once: true });
            void output.whenAtMost(LOW_WATER).then(() => {
              signal?.removeEventListener("abort", onAbort);
              resolve();
            });
          });
        return {
          next: () => (output.size > HIGH_WATER ? waitForReader().then(() => inner.next()) : inner.next()),
          return: (value?: unknown) =>
            inner.return ? inner.return(value) : Promise.resolve({ done: true as const, value }),
          throw: (error?: unknown) => (inner.throw ? inner.throw(error) : Promise.reject(error)),
        };
      },
    } as ReturnType<ModelCaller>;
  };
}
