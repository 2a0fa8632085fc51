/**
 * Who serves a model and where its key comes from: what `system/init` (`apiKeySource`) and the
 * Claude Agent SDK's `accountInfo()` report, worked out from the provider configs and the environment
 * the providers themselves read, without calling anything.
 */
import { createProviderRegistry, type ProviderRegistry, type ProviderSpec } from "./resolve.js";

/** Who serves the model and where its key comes from (the SDK's `AccountInfo`, plus Goat's fields). */
export interface AccountInfo {
  /** Where the key comes from: `getApiKey`, `provider option`, an environment variable's name, or `none`. */
  apiKeySource: string;
  /** For Anthropic: `firstParty` against api.anthropic.com, `gateway` against another base URL. */
  apiProvider?: "firstParty" | "gateway";
  /** The provider serving the current model (`anthropic`, `openai`, or a name given in `provider`). */
  provider: string;
  /** The current model, `provider/model`. */
  model: string;
}

/** What `accountOf` looks at besides the model. */
export interface AccountSources {
  /** The session's provider configs (`query()`'s `provider`). */
  providers?: readonly ProviderSpec[];
  /** The registry built from them, when there is one already (else one is built). */
  registry?: ProviderRegistry;
  /** True when a `getApiKey` callback answers the keys. */
  getApiKey?: boolean;
  /** The environment the providers read their keys and base URLs from. */
  env: Record<string, string | undefined>;
}

const KEY_VARIABLES: Record<string, string[]> = {
  anthropic: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"],
  openai: ["OPENAI_API_KEY"],
  "openai-responses": ["OPENAI_API_KEY"],
  azure: ["AZURE_OPENAI_API_KEY"],
  "azure-responses": ["AZURE_OPENAI_API_KEY"],
  "azure-foundry": ["AZURE_AI_API_KEY", "AZURE_OPENAI_API_KEY"],
  gemini: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
};

/**
 * The account of `model` (an id or alias), in the order the providers look for a key. Throws as
 * resolving the model does, for a provider nobody configured.
 */
export function accountOf(model: string, sources: AccountSources): AccountInfo {
  const { env } = sources;
  const providers = sources.providers ?? [];
  const resolved = (sources.registry ?? createProviderRegistry(providers, { env })).resolve(model);
  const provider = resolved.id.slice(0, resolved.id.indexOf("/"));
  const spec = providers.find((s) => ("stream" in s ? s.name : (s.name ?? s.type)) === provider);
  const config = spec && !("stream" in spec) ? spec : undefined;
  // A Provider object has no type; a built-in provider's name is its type.
  const providerType = spec ? config?.type : provider;
  const variable = (KEY_VARIABLES[providerType ?? ""] ?? []).find((name) => (env[name] ?? "") !== "");
  const apiKeySource = sources.getApiKey
    ? "getApiKey"
    : config?.apiKey !== undefined
      ? "provider option"
      : providerType === undefined
        ? "provider object"
        : (variable ?? "none");
  const info: AccountInfo = { apiKeySource, provider, model: resolved.id };
  if (providerType === "anthropic") {
    const baseURL = config?.baseURL ?? env.ANTHROPIC_BASE_URL;
    info.apiProvider = !baseURL || baseURL.startsWith("https://api.anthropic.com") ? "firstParty" : "gateway";
  }
  return info;
}
