/**
 * Model resolution: turns a `provider/model` id (`anthropic/claude-sonnet-4-5`, `litellm/gpt-4o`) into
 * the provider instance that serves it and the model id that provider's API takes.
 *
 * A registry holds the providers of one session. It creates each provider lazily and only once, so its
 * keep-alive connections are reused across calls. Keys and base URLs not given here are read from the
 * environment by the providers at call time, never at resolution time.
 */

import { InvalidOptionError } from "../errors.js";
import { createAnthropicProvider } from "./anthropic.js";
import { createAzureOpenAIProvider } from "./azure.js";
import { createBedrockProvider } from "./bedrock.js";
import { envFlag } from "./cloud-http.js";
import { createGeminiProvider } from "./gemini.js";
import { createOpenAIProvider } from "./openai.js";
import { createOpenAIResponsesProvider } from "./openai-responses.js";
import type { Provider, ProviderOptions } from "./types.js";
import { createVertexProvider } from "./vertex.js";

/**
 * The APIs Goat speaks. `openai` also covers LiteLLM, vLLM, Ollama and other compatible gateways
 * (Chat Completions; Responses for OpenAI's reasoning models on OpenAI's API); `openai-responses`
 * is always the Responses API; `azure` is Azure OpenAI / AI Foundry (OpenAI's models, and others'
 * through the Model Inference API with `wire: "foundry"`); `gemini` the Gemini API;
 * `bedrock` and `vertex` are Claude (and Bedrock's other models) on Amazon's and Google's clouds.
 */
export type ProviderType =
  | "anthropic"
  | "openai"
  | "openai-responses"
  | "azure"
  | "gemini"
  | "bedrock"
  | "vertex";

/** A provider described by its wire format and how to reach it; `name` defaults to `type`. */
export interface ProviderConfig extends ProviderOptions {
  type: ProviderType;
  /**
   * `azure` only: which wire (default `auto`: Responses for reasoning-model deployments; `foundry` is
   * the Azure AI Model Inference API for Foundry's non-OpenAI models).
   */
  wire?: "auto" | "chat" | "responses" | "foundry";
}

/** A provider given either as a config or as a ready instance (a custom or test provider). */
export type ProviderSpec = ProviderConfig | Provider;

/** The provider that serves a model id, and the id to send to it. */
export interface ResolvedModel {
  provider: Provider;
  /** The model id without the provider prefix, as the provider's API takes it. */
  modelId: string;
  /** The canonical `provider/model` id, e.g. for catalog lookups and transcripts. */
  id: string;
}

/** The providers of one session, created on first use and then reused. */
export interface ProviderRegistry {
  /** The provider with this name, creating it on first use; undefined when no such provider exists. */
  get(name: string): Provider | undefined;
  /** Every provider name this registry knows, built-ins included. */
  names(): string[];
  /** Resolves `provider/model`, or a bare model id whose provider is clear from its name. */
  resolve(model: string): ResolvedModel;
  /**
   * Closes the providers this registry created from configs, releasing their connections (a provider
   * given as a ready instance is its owner's to close). A later `get` or `resolve` still works.
   */
  close(): void;
}

const FACTORIES: Record<ProviderType, (options: ProviderOptions) => Provider> = {
  anthropic: createAnthropicProvider,
  openai: createOpenAIProvider,
  "openai-responses": createOpenAIResponsesProvider,
  azure: createAzureOpenAIProvider,
  gemini: createGeminiProvider,
  bedrock: createBedrockProvider,
  vertex: createVertexProvider,
};

/**
 * Claude Code's switches that send every Claude call through a cloud: `CLAUDE_CODE_USE_BEDROCK=1` or
 * `CLAUDE_CODE_USE_VERTEX=1` (Bedrock wins when both are set, as in Claude Code).
 */
export function claudeCloud(env: Record<string, string | undefined>): "bedrock" | "vertex" | undefined {
  if (envFlag(env.CLAUDE_CODE_USE_BEDROCK)) return "bedrock";
  if (envFlag(env.CLAUDE_CODE_USE_VERTEX)) return "vertex";
  return undefined;
}

/**
 * The providers every registry knows by name (`azure-responses` is Azure always on Responses,
 * `azure-foundry` Azure AI Foundry's Model Inference API).
 */
const BUILT_INS: Array<[string, ProviderConfig]> = [
  ["anthropic", { type: "anthropic" }],
  ["openai", { type: "openai" }],
  ["openai-responses", { type: "openai-responses" }],
  ["azure", { type: "azure" }],
  ["azure-responses", { type: "azure", wire: "responses" }],
  ["azure-foundry", { type: "azure", wire: "foundry" }],
  ["gemini", { type: "gemini" }],
  ["bedrock", { type: "bedrock" }],
  ["vertex", { type: "vertex" }],
];

/** Claude Code's short model names, so `model: "sonnet"` works as it does there. */
export const MODEL_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  sonnet: "anthropic/claude-sonnet-4-5",
  opus: "anthropic/claude-opus-4-5",
  haiku: "anthropic/claude-haiku-4-5",
});

/** Expands a short model name (`sonnet`, `opus`, `haiku`) to its `provider/model` id; others unchanged. */
export function expandModelAlias(model: string): string {
  return MODEL_ALIASES[model.trim().toLowerCase()] ?? model;
}

/** Bare model ids whose provider is obvious from the name. */
const GUESSES: Array<[RegExp, ProviderType]> = [
  [/^claude-/i, "anthropic"],
  [/^(?:gpt-|chatgpt-|o\d(?:-|$)|codex-)/i, "openai"],
  [/^gemini-/i, "gemini"],
];

/** Settings every provider the registry creates starts from (a spec's own fields win). */
export type ProviderDefaults = Pick<ProviderOptions, "env" | "timeouts" | "proxy" | "getApiKey"> & {
  /**
   * Anthropic beta features (e.g. `context-1m-2025-08-07`), sent as the `anthropic-beta` header by every
   * provider of type `anthropic` the registry creates (after any the provider's own headers name).
   */
  anthropicBetas?: readonly string[];
};

/**
 * Creates a registry with the built-in providers (`anthropic`, `openai`, `openai-responses`, `azure`,
 * `azure-responses`, `azure-foundry`, `gemini`, `bedrock`, `vertex`) plus `specs`. A spec named
 * like a built-in replaces it; `defaults` apply to every provider created from a config. Example:
 * `createProviderRegistry([{ type: "openai", name: "litellm", baseURL: "http://127.0.0.1:4000" }])`.
 */
export function createProviderRegistry(
  specs: readonly ProviderSpec[] = [],
  defaults: ProviderDefaults = {},
): ProviderRegistry {
  const specByName = new Map<string, ProviderSpec>(BUILT_INS);
  const builtInAnthropic = specByName.get("anthropic");
  // With Claude Code's cloud switch on, the built-in Anthropic provider's models go to the cloud.
  const cloud = claudeCloud(defaults.env ?? process.env);
  const routed = (name: string): string =>
    cloud && name === "anthropic" && specByName.get("anthropic") === builtInAnthropic ? cloud : name;
  const seen = new Set<string>();
  for (const spec of specs) {
    const name = specName(spec);
    if (!/^[A-Za-z0-9._-]+$/.test(name)) {
      throw new InvalidOptionError(
        "provider",
        `Provider name "${name}" is invalid: use letters, digits, ".", "_" or "-" (no "/").`,
      );
    }
    if (!isProvider(spec) && !(spec.type in FACTORIES)) {
      throw new InvalidOptionError(
        "provider",
        `Provider "${name}" has unknown type "${spec.type}"; use one of ${Object.keys(FACTORIES).join(", ")}.`,
      );
    }
    if (seen.has(name))
      throw new InvalidOptionError(
        "provider",
        `Two providers are named "${name}"; give each a distinct name.`,
      );
    seen.add(name);
    specByName.set(name, spec);
  }
  const instances = new Map<string, Provider>();

  function get(name: string): Provider | undefined {
    const existing = instances.get(name);
    if (existing) return existing;
    const spec = specByName.get(name);
    if (!spec) return undefined;
    const { anthropicBetas, ...shared } = defaults;
    const provider = isProvider(spec)
      ? spec
      : FACTORIES[spec.type]({
          ...withoutUndefined(shared),
          ...withoutUndefined(spec),
          ...(spec.type === "anthropic" ? betaHeaders(spec.headers, anthropicBetas) : {}),
          name,
        });
    instances.set(name, provider);
    return provider;
  }

  function names(): string[] {
    return [...specByName.keys()];
  }

  function resolve(model: string): ResolvedModel {
    const trimmed = expandModelAlias(model).trim();
    if (trimmed === "")
      throw new InvalidOptionError(
        "model",
        `No model given. Name one as provider/model, e.g. anthropic/claude-sonnet-4-5.`,
      );
    const slash = trimmed.indexOf("/");
    if (slash >= 0) {
      const name = routed(trimmed.slice(0, slash));
      const modelId = trimmed.slice(slash + 1);
      const provider = get(name);
      if (!provider) {
        throw new InvalidOptionError(
          "model",
          `Unknown provider "${name}" in model "${trimmed}". Known providers: ${names().join(", ")}. ` +
            `Add it as { type: "openai" | "anthropic" | "gemini", name: "${name}", baseURL }, or prefix a known ` +
            `provider (e.g. openai/${trimmed} for a model served by an OpenAI-compatible endpoint).`,
        );
      }
      if (modelId === "")
        throw new InvalidOptionError("model", `Model "${trimmed}" names no model after "${name}/".`);
      return { provider, modelId, id: `${name}/${modelId}` };
    }
    const pattern = GUESSES.find(([p]) => p.test(trimmed))?.[1];
    const guess = pattern && routed(pattern);
    const provider = guess && get(guess);
    if (!guess || !provider) {
      throw new InvalidOptionError(
        "model",
        `Cannot tell which provider serves model "${trimmed}". Write it as provider/model; ` +
          `known providers: ${names().join(", ")}.`,
      );
    }
    return { provider, modelId: trimmed, id: `${guess}/${trimmed}` };
  }

  function close(): void {
    for (const [name, provider] of instances) {
      const spec = specByName.get(name);
      if (spec && !isProvider(spec)) provider.close?.();
    }
  }

  return { get, names, resolve, close };
}

/**
 * Picks the default model: `GOAT_MODEL`; with Claude Code's Bedrock or Vertex switch on,
 * `ANTHROPIC_MODEL` (else Sonnet) on that cloud; else the provider whose key is set, else Anthropic.
 */
export function defaultModel(env: Record<string, string | undefined>): string {
  if (env.GOAT_MODEL) return env.GOAT_MODEL;
  const cloud = claudeCloud(env);
  if (cloud) {
    const model = env.ANTHROPIC_MODEL ? expandModelAlias(env.ANTHROPIC_MODEL) : "claude-sonnet-4-5";
    return model.includes("/") && !model.startsWith("arn:") ? model : `${cloud}/${model}`;
  }
  if (!env.ANTHROPIC_API_KEY && env.OPENAI_API_KEY) return "openai/gpt-4.1";
  if (!env.ANTHROPIC_API_KEY && (env.GEMINI_API_KEY || env.GOOGLE_API_KEY)) return "gemini/gemini-2.5-pro";
  return "anthropic/claude-sonnet-4-5";
}

/**
 * Resolves one model id. Pass the session's registry so providers (and their connections) are reused;
 * given specs or nothing, a fresh registry is made for this call only.
 */
export function resolveModel(
  model: string,
  providers?: ProviderRegistry | readonly ProviderSpec[],
): ResolvedModel {
  const registry = isRegistry(providers) ? providers : createProviderRegistry(providers ?? []);
  return registry.resolve(model);
}

/** The provider's headers with `betas` added to its `anthropic-beta` list; nothing when there are none. */
function betaHeaders(
  headers: Record<string, string> | undefined,
  betas: readonly string[] | undefined,
): { headers?: Record<string, string> } {
  if (!betas || betas.length === 0) return {};
  const own = headers?.["anthropic-beta"];
  return { headers: { ...headers, "anthropic-beta": [...(own ? [own] : []), ...betas].join(",") } };
}

/** Drops fields set to undefined, so they do not hide a default when spread over it. */
function withoutUndefined<T extends object>(value: T): Partial<T> {
  const out: Partial<T> = {};
  for (const key of Object.keys(value) as Array<keyof T>) if (value[key] !== undefined) out[key] = value[key];
  return out;
}

function specName(spec: ProviderSpec): string {
  return isProvider(spec) ? spec.name : (spec.name ?? spec.type);
}

function isProvider(spec: ProviderSpec): spec is Provider {
  return typeof (spec as Provider).stream === "function";
}

function isRegistry(
  value: ProviderRegistry | readonly ProviderSpec[] | undefined,
): value is ProviderRegistry {
  return (
    value !== undefined && !Array.isArray(value) && typeof (value as ProviderRegistry).resolve === "function"
  );
}
