/**
 * A model catalog: looks up what is known about a model id (limits, prices). Each session creates its
 * own catalog from the built-in list plus its overrides, so one session's registrations never leak into
 * another's; there is no global registry.
 *
 * Lookup is forgiving in the ways ids appear in the wild: with or without a `provider/` prefix
 * (`anthropic/claude-sonnet-4-5`, `litellm/gpt-4o`), and with a date or `-latest` suffix
 * (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`). Only such suffixes are stripped, never arbitrary
 * tails, so `o3-pro` does not silently get `o3`'s prices.
 */

import { defaultModels, type ModelInfo } from "./models.js";

/** A per-session, mutable set of known models. */
export interface ModelCatalog {
  /** The model's info, or undefined when the id is unknown. */
  get(id: string): ModelInfo | undefined;
  /** Adds a model or replaces the entry with the same provider and id. */
  register(info: ModelInfo): void;
  /** Every known model, in registration order. */
  list(): ModelInfo[];
}

const DATE_SUFFIX = /-(?:\d{8}|\d{4}-\d{2}-\d{2}|latest)$/;

/**
 * Creates a catalog holding the built-in models, then `overrides` (which replace built-ins with the same
 * provider and id). Example: `createModelCatalog([{ ...gpt4o, provider: "litellm", pricing }])`.
 */
export function createModelCatalog(overrides: readonly ModelInfo[] = []): ModelCatalog {
  // Keyed by "provider/id" so two providers may list the same model id at different prices.
  const byKey = new Map<string, ModelInfo>();
  // Bare id -> most recently registered entry with that id, so an override also wins for bare lookups.
  const byId = new Map<string, ModelInfo>();

  // Lookups by the id as given: the loop asks for the same model several times a turn.
  const memo = new Map<string, ModelInfo | undefined>();

  function register(info: ModelInfo): void {
    memo.clear();
    const entry = { ...info, pricing: { ...info.pricing } };
    const key = `${info.provider}/${info.id}`.toLowerCase();
    byKey.delete(key); // keep list() in "last registered last" order
    byKey.set(key, entry);
    byId.set(info.id.toLowerCase(), entry);
  }

  function exact(id: string, preferProvider?: string): ModelInfo | undefined {
    if (preferProvider !== undefined) {
      const hit = byKey.get(`${preferProvider}/${id}`);
      if (hit) return hit;
    }
    return byId.get(id);
  }

  function get(rawId: string): ModelInfo | undefined {
    const id = rawId.trim().toLowerCase();
    if (id === "") return undefined;
    // "provider/model" first as a whole (a registered "litellm/my-model"), then the part after each
    // slash, preferring the named provider's entry: "openrouter/anthropic/claude-x" finds claude-x.
    const whole = byKey.get(id);
    if (whole) return whole;
    const parts = id.split("/");
    for (let i = 0; i < parts.length; i++) {
      const model = parts.slice(i).join("/");
      const provider = i > 0 ? parts[i - 1] : undefined;
      const hit = exact(model, provider) ?? exact(model.replace(DATE_SUFFIX, ""), provider);
      if (hit) return hit;
    }
    return undefined;
  }

  for (const info of defaultModels) register(info);
  for (const info of overrides) register(info);

  return {
    get: (id) => {
      let hit = memo.get(id);
      if (hit === undefined && !memo.has(id)) {
        hit = get(id);
        if (memo.size >= 256) memo.clear(); // ids come from configuration, but never let it grow unbounded
        memo.set(id, hit);
      }
      return hit && { ...hit, pricing: { ...hit.pricing } };
    },
    register,
    list: () => [...byKey.values()].map((m) => ({ ...m, pricing: { ...m.pricing } })),
  };
}
