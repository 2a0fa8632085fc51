/**
 * The dollar cost of one model call, from its usage and the model's list prices, and where those
 * prices come from: the user's `modelPricing` first, then the model catalog. A model with no price
 * costs 0 and says so (`known: false`), so the runtime can warn, and refuse a budget it could never
 * enforce, instead of silently treating the calls as free.
 */

import { InvalidOptionError } from "../errors.js";
import type { ModelCatalog } from "./catalog.js";
import type { ModelInfo, ModelPricing } from "./models.js";
import type { Usage } from "./types.js";

/** The cost of a call; `known` is false when the model had no price, and `costUsd` is then 0. */
export interface CallCost {
  costUsd: number;
  known: boolean;
}

/**
 * A price given by the user, in USD per million tokens. Cache reads default to the input price, cache
 * writes too (what OpenAI-compatible servers charge; give Anthropic's rates explicitly).
 */
export interface ModelPriceInput {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/**
 * Prices `usage` with `model`'s per-million-token rates. Usage follows the Anthropic convention the
 * providers normalize to: `input_tokens` excludes cached tokens, which are billed separately as cache
 * reads and writes. Example: `computeCost(message.usage, catalog.get("anthropic/claude-sonnet-4-5"))`.
 */
export function computeCost(usage: Usage | undefined, model: ModelInfo | undefined): CallCost {
  if (!model) return { costUsd: 0, known: false };
  return { costUsd: costAt(usage, model.pricing), known: true };
}

/** The cost of `usage` at `pricing` (USD per million tokens). */
export function costAt(usage: Usage | undefined, pricing: ModelPricing): number {
  if (!usage) return 0;
  const long = pricing.longContext;
  const p =
    long !== undefined &&
    usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens > long.aboveTokens
      ? long
      : pricing;
  const micro =
    usage.input_tokens * p.input +
    usage.output_tokens * p.output +
    usage.cache_read_input_tokens * p.cacheRead +
    usage.cache_creation_input_tokens * p.cacheWrite;
  return micro / 1_000_000;
}

/** Finds a model's price: the user's own first, then the catalog's. */
export interface PriceList {
  /** The price of `model` (`provider/model` or a bare id), or undefined when nobody gave one. */
  priceOf(model: string): ModelPricing | undefined;
}

/**
 * Builds the price list of a session. Keys of `given` are matched as written (case-insensitive), then
 * without their provider prefix, so `{ "my-model": … }` prices `litellm/my-model` too.
 * Throws for a price that is not a pair of non-negative numbers, naming the model.
 */
export function createPriceList(
  catalog: ModelCatalog,
  given: Record<string, ModelPriceInput> | undefined,
): PriceList {
  const own = new Map<string, ModelPricing>();
  for (const [model, price] of Object.entries(given ?? {}))
    own.set(model.toLowerCase(), checkedPrice(model, price));
  return {
    priceOf(model) {
      if (own.size > 0) {
        const id = model.trim().toLowerCase();
        const hit = own.get(id) ?? own.get(id.slice(id.indexOf("/") + 1));
        if (hit) return hit;
      }
      return catalog.get(model)?.pricing;
    },
  };
}

function checkedPrice(model: string, price: ModelPriceInput): ModelPricing {
  const ok = (v: unknown) => typeof v === "number" && Number.isFinite(v) && v >= 0;
  const p = price as Partial<ModelPriceInput> | undefined;
  if (
    !p ||
    !ok(p.input) ||
    !ok(p.output) ||
    (p.cacheRead !== undefined && !ok(p.cacheRead)) ||
    (p.cacheWrite !== undefined && !ok(p.cacheWrite))
  ) {
    throw new InvalidOptionError(
      "modelPricing",
      `modelPricing["${model}"] must be { input, output } in USD per million tokens (numbers ≥ 0; cacheRead and cacheWrite optional), got ${JSON.stringify(price)}`,
    );
  }
  const input = p.input as number;
  return {
    input,
    output: p.output as number,
    cacheRead: p.cacheRead ?? input,
    cacheWrite: p.cacheWrite ?? input,
  };
}
