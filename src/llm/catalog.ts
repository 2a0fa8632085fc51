/**
 * A model catalog: looks up what is known about a model id (limits, prices). Each session creates its
 * own catalog from the built-in list plus its overrides, so one session's registrations never leak into
 * another's; there is no global registry (the built-in list is indexed once per process, read-only).
 *
 * Lookup is forgiving in the ways ids appear in the wild: with or without a `provider/` prefix
 * (`anthropic/claude-sonnet-4-5`, `litellm/gpt-4o`), and with a date or `-latest` suffix
 * (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`). Only such suffixes are stripped, never arbitrary
 * tails, so `o3-pro` does not silently get `o3`'s prices.
 */

import { baseModelId } from "./cloud-models.js";
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

/** Entries keyed by "provider/id" and by bare id (the most recently registered entry with that id). */
interface Index {
  byKey: Map<string, Readonly<ModelInfo>>;
  byId: Map<string, Readonly<ModelInfo>>;
}

// The built-in models indexed once per process. Read-only: entries are frozen, the maps are never
// written after they are built, and every catalog hands out copies, so sessions cannot see each other.
let builtIn: Index | undefined;

function builtInIndex(): Index {
  if (builtIn) return builtIn;
  const index: Index = { byKey: new Map(), byId: new Map() };
  for (const info of defaultModels) {
    const entry = Object.freeze({ ...info, pricing: Object.freeze({ ...info.pricing }) });
    index.byKey.set(`${info.provider}/${info.id}`.toLowerCase(), entry);
    index.byId.set(info.id.toLowerCase(), entry);
  }
  builtIn = index;
  return index;
}

/**
 * Creates a catalog holding the built-in models, then `overrides` (which replace built-ins with the same
 * provider and id). Example: `createModelCatalog([{ ...gpt4o, provider: "litellm", pricing }])`.
 */
export function createModelCatalog(overrides: readonly ModelInfo[] = []): ModelCatalog {
  // The session's own entries lie over the shared built-ins, so a catalog costs nothing until a
  // model is registered (hundreds of concurrent sessions each used to copy the whole list).
  const shared = builtInIndex();
  const own: Index = { byKey: new Map(), byId: new Map() };

  // Lookups by the id as given: the loop asks for the same model several times a turn.
  const memo = new Map<string, ModelInfo | undefined>();

  function register(info: ModelInfo): void {
    memo.clear();
    const entry = { ...info, pricing: { ...info.pricing } };
    const key = `${info.provider}/${info.id}`.toLowerCase();
    own.byKey.delete(key); // keep list() in "last registered last" order
    own.byKey.set(key, entry);
    own.byId.set(info.id.toLowerCase(), entry);
  }

  function byKey(key: string): Readonly<ModelInfo> | undefined {
    return own.byKey.get(key) ?? shared.byKey.get(key);
  }

  function exact(id: string, preferProvider?: string): Readonly<ModelInfo> | undefined {
    if (preferProvider !== undefined) {
      const hit = byKey(`${preferProvider}/${id}`);
      if (hit) return hit;
    }
    return own.byId.get(id) ?? shared.byId.get(id);
  }

  function get(rawId: string): Readonly<ModelInfo> | undefined {
    const id = rawId.trim().toLowerCase();
    if (id === "") return undefined;
    // "provider/model" first as a whole (a registered "litellm/my-model"), then the part after each
    // slash, preferring the named provider's entry: "openrouter/anthropic/claude-x" finds claude-x.
    const whole = byKey(id);
    if (whole) return whole;
    const parts = id.split("/");
    for (let i = 0; i < parts.length; i++) {
      const model = parts.slice(i).join("/");
      const provider = i > 0 ? parts[i - 1] : undefined;
      const hit = exact(model, provider) ?? exact(model.replace(DATE_SUFFIX, ""), provider);
      if (hit) return hit;
      // Claude as Bedrock (`us.anthropic.claude-x-20250929-v1:0`) or Vertex (`claude-x@20250929`) names it.
      const base = baseModelId(model);
      if (base !== model) {
        const cloud = exact(base, provider) ?? exact(base.replace(DATE_SUFFIX, ""), provider);
        if (cloud) return cloud;
      }
    }
    return undefined;
  }

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
    list: () => {
      // Built-ins first (minus those replaced), then the session's own in registration order.
      const all: Readonly<ModelInfo>[] = [];
      for (const [key, m] of shared.byKey) if (!own.byKey.has(key)) all.push(m);
      all.push(...own.byKey.values());
      return all.map((m) => ({ ...m, pricing: { ...m.pricing } }));
    },
  };
}
