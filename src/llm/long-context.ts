/**
 * Anthropic's 1M-token context window: Claude Sonnet 4 and 4.5 take a million tokens of context when
 * the request carries the `context-1m-2025-08-07` beta (the SDK's `betas` option). A session that
 * asks for it sees those models with that window, so it compacts near a million tokens rather than
 * near 200,000, and their calls are priced at the long-context rates past 200,000 prompt tokens
 * (twice the input rates, one and a half times the output rate).
 */
import type { ModelCatalog } from "./catalog.js";
import type { ModelInfo } from "./models.js";

/** The Anthropic models the 1M-context beta applies to (dated ids resolve to these). */
const LONG_CONTEXT_MODELS: readonly string[] = ["claude-sonnet-4", "claude-sonnet-4-5"];

/** The context window with the beta. */
const LONG_CONTEXT_WINDOW = 1_000_000;

/** Prompt tokens past which a call is billed at the long-context rates. */
const LONG_CONTEXT_PRICE_THRESHOLD = 200_000;

/** True when `betas` turns on the 1M-token context (any `context-1m-…` beta). */
export function asksForLongContext(betas: readonly string[] | undefined): boolean {
  return betas?.some((beta) => beta.startsWith("context-1m-")) ?? false;
}

/**
 * Gives the session's catalog the 1M window and long-context prices of the models the beta applies
 * to. A model the user described in `models` keeps the user's own entry.
 */
export function widenToLongContext(catalog: ModelCatalog, userModels: readonly ModelInfo[]): void {
  for (const id of LONG_CONTEXT_MODELS) {
    if (userModels.some((m) => m.provider === "anthropic" && m.id === id)) continue;
    const info = catalog.get(`anthropic/${id}`);
    if (info === undefined) continue;
    const p = info.pricing;
    catalog.register({
      ...info,
      contextWindow: LONG_CONTEXT_WINDOW,
      pricing: {
        ...p,
        longContext: {
          aboveTokens: LONG_CONTEXT_PRICE_THRESHOLD,
          input: p.input * 2,
          output: p.output * 1.5,
          cacheRead: p.cacheRead * 2,
          cacheWrite: p.cacheWrite * 2,
        },
      },
    });
  }
}
