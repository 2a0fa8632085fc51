/**
 * A catalog's models as a host shows them: the Claude Agent SDK's `ModelInfo` (value, name, a line of
 * description, the effort levels and whether the model thinks adaptively). One builder for the two
 * places that answer it: a session's `supportedModels()` and the models of `goat`'s `initialize`
 * answer, which an Agent SDK host reads for the same method.
 */
import type { ModelCatalog } from "./catalog.js";
import type { ModelInfo } from "./models.js";
import type { EffortLevel } from "./types.js";

/** A model the session can use (the SDK's `ModelInfo`). */
export interface SupportedModel {
  /** `provider/model`, as the `model` option and `setModel()` take it. */
  value: string;
  /** The model's name (its id when the catalog has no name for it). */
  displayName: string;
  /** One line: the provider, the context window and the output limit, in tokens. */
  description: string;
  /** Whether the `effort` option reaches this model. */
  supportsEffort?: boolean;
  /** The effort levels it takes, lowest first (when it takes any). */
  supportedEffortLevels?: string[];
  /** Anthropic models: whether it takes `thinking: { type: "adaptive" }` (else that becomes a fixed budget). */
  supportsAdaptiveThinking?: boolean;
}

/** The effort levels a known model takes, lowest first. */
export function effortLevelsOf(info: ModelInfo): readonly EffortLevel[] {
  if (info.effortLevels) return info.effortLevels;
  if (info.provider === "openai" && info.reasoning) {
    return info.id.startsWith("gpt-5") ? ["minimal", "low", "medium", "high"] : ["low", "medium", "high"];
  }
  return [];
}

/** Every model of the catalog, with what it takes of thinking and effort. */
export function supportedModels(catalog: ModelCatalog): SupportedModel[] {
  return catalog.list().map((m) => {
    const levels = effortLevelsOf(m);
    const out: SupportedModel = {
      value: `${m.provider}/${m.id}`,
      displayName: m.name ?? m.id,
      description: `${m.provider}, ${groupDigits(m.contextWindow)}-token context, up to ${groupDigits(m.maxOutputTokens)} output tokens`,
      supportsEffort: levels.length > 0,
    };
    if (levels.length > 0) out.supportedEffortLevels = [...levels];
    if (m.provider === "anthropic") out.supportsAdaptiveThinking = m.adaptiveThinking === true;
    return out;
  });
}

/**
 * `200000` as `200,000`. Not `toLocaleString("en-US")`: its first call loads ICU's number formatting,
 * about 12 ms, and `goat` builds this list for every Agent SDK session's `initialize`.
 */
function groupDigits(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}
