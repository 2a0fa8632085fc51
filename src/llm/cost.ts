/**
 * The dollar cost of one model call, from its usage and the model's list prices. A model the catalog
 * does not know costs 0 and says so (`known: false`), so a budget check can warn instead of silently
 * treating the call as free.
 */

import type { ModelInfo } from "./models.js";
import type { Usage } from "./types.js";

/** The cost of a call; `known` is false when the model had no price, and `costUsd` is then 0. */
export interface CallCost {
  costUsd: number;
  known: boolean;
}

/**
 * Prices `usage` with `model`'s per-million-token rates. Usage follows the Anthropic convention the
 * providers normalize to: `input_tokens` excludes cached tokens, which are billed separately as cache
 * reads and writes. Example: `computeCost(message.usage, catalog.get("anthropic/claude-sonnet-4-5"))`.
 */
export function computeCost(usage: Usage | undefined, model: ModelInfo | undefined): CallCost {
  if (!model) return { costUsd: 0, known: false };
  if (!usage) return { costUsd: 0, known: true };
  const p = model.pricing;
  const micro =
    usage.input_tokens * p.input +
    usage.output_tokens * p.output +
    usage.cache_read_input_tokens * p.cacheRead +
    usage.cache_creation_input_tokens * p.cacheWrite;
  return { costUsd: micro / 1_000_000, known: true };
}
