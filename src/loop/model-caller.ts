/**
 * How the loop reaches a model: resolve `provider/model` through the session's provider registry,
 * stream with the one retry strategy, and switch to the fallback model when the primary is
 * overloaded or unavailable after its retries (the `fallbackModel` option).
 */
import { isProviderError } from "../llm/errors.js";
import type { ProviderRegistry } from "../llm/resolve.js";
import { type RetryOptions, streamWithRetry } from "../llm/retry.js";
import type { StreamEvent } from "../llm/types.js";
import type { ModelCaller } from "./loop-config.js";

const FALLBACK_KINDS = new Set(["overloaded", "server", "not_found", "rate_limit", "network", "timeout"]);

/** Builds the loop's `callModel` from a registry, retry options and an optional fallback model. */
export function createModelCaller(
  registry: ProviderRegistry,
  options: { retry?: RetryOptions; fallbackModel?: string },
): ModelCaller {
  return (model, request, onRetry, onFallback) => {
    if (!options.fallbackModel || options.fallbackModel === model) {
      // The common case pays for one generator layer, not two: this sits on every stream event.
      const primary = registry.resolve(model);
      return streamWithRetry(
        primary.provider,
        { ...request, model: primary.modelId },
        {
          retry: options.retry,
          signal: request.signal,
          onRetry,
        },
      );
    }
    return (async function* (): AsyncGenerator<StreamEvent> {
      const primary = registry.resolve(model);
      try {
        yield* streamWithRetry(
          primary.provider,
          { ...request, model: primary.modelId },
          {
            retry: options.retry,
            signal: request.signal,
            onRetry,
          },
        );
      } catch (error) {
        const fallback = options.fallbackModel;
        const usable =
          fallback &&
          fallback !== model &&
          isProviderError(error) &&
          !error.afterFirstDelta &&
          FALLBACK_KINDS.has(error.kind);
        if (!usable) throw error;
        const second = registry.resolve(fallback);
        onFallback?.(fallback, error);
        yield* streamWithRetry(
          second.provider,
          { ...request, model: second.modelId },
          {
            retry: options.retry,
            signal: request.signal,
            onRetry,
          },
        );
      }
    })();
  };
}
