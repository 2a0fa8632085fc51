/**
 * A model caller that stops reading the model's stream while the host lags behind: the host says
 * when it lags (`StreamPace`), the unread answer waits in the socket, and TCP slows the provider
 * down. What "lagging" means is the host's business (the SDK measures its message buffer); the
 * runtime only pauses. A fast reader pays one `lagging()` call per stream event.
 */
import type { ModelCaller } from "../loop/loop-config.js";

/** How a host tells the runtime to pause the model's stream. */
export interface StreamPace {
  /** True while the host has more waiting than it wants: the stream is not read further. */
  lagging(): boolean;
  /** Resolves once the host has caught up enough for the stream to be read again. */
  caughtUp(): Promise<void>;
}

/** Wraps `call` so its streams pause while `pace.lagging()` is true. */
export function pacedModelCaller(call: ModelCaller, pace: StreamPace): ModelCaller {
  return (model, request, ...rest) => {
    // Every further argument (onRetry, onFallback, …) goes through unchanged.
    const stream = call(model, request, ...rest);
    return {
      [Symbol.asyncIterator]() {
        const inner = stream[Symbol.asyncIterator]();
        const waitForHost = () =>
          new Promise<void>((resolve) => {
            const signal = request.signal;
            // An abort (interrupt, close) must not wait for a reader that may never come.
            if (signal?.aborted) return resolve();
            const onAbort = () => resolve();
            signal?.addEventListener("abort", onAbort, { once: true });
            void pace.caughtUp().then(() => {
              signal?.removeEventListener("abort", onAbort);
              resolve();
            });
          });
        return {
          next: () => (pace.lagging() ? waitForHost().then(() => inner.next()) : inner.next()),
          return: (value?: unknown) =>
            inner.return ? inner.return(value) : Promise.resolve({ done: true as const, value }),
          throw: (error?: unknown) => (inner.throw ? inner.throw(error) : Promise.reject(error)),
        };
      },
    } as ReturnType<ModelCaller>;
  };
}
