/**
 * WebSearch's pluggable backend: the interface any search service implements, and the built-in ones
 * a user picks by configuration (SearXNG's JSON API, Brave's Search API). Goat has no search of its
 * own, so without a backend the WebSearch tool is not offered at all.
 *
 * Configuration, as `query()`'s `webSearch` option, the `--web-search` flag or `GOAT_WEB_SEARCH`:
 * - `"searxng:http://127.0.0.1:8888"` or `{ provider: "searxng", url }`: a SearXNG instance whose
 *   settings allow the `json` format;
 * - `"brave"` or `{ provider: "brave", apiKey? }`: Brave Search, with the key from `apiKey` or
 *   `BRAVE_API_KEY`;
 * - any object with `name` and `search()` (the `WebSearchBackend` interface).
 */
import { InvalidOptionError } from "../../errors.js";
import { createBraveSearch } from "./brave-search.js";
import type { WebSearchBackend } from "./search-types.js";
import { createSearxngSearch } from "./searxng.js";

export type { WebSearchBackend, WebSearchRequest, WebSearchResult } from "./search-types.js";

/** The `webSearch` option: a built-in backend's configuration, its short form, or your own backend. */
export type WebSearchOption =
  | string
  | { provider: "searxng"; url: string }
  | { provider: "brave"; apiKey?: string; url?: string }
  | WebSearchBackend;

/** A web search configuration that cannot be used: an `InvalidOptionError` for the `webSearch` option. */
export class WebSearchConfigError extends InvalidOptionError {
  override name = "WebSearchConfigError";
  constructor(message: string) {
    super("webSearch", message);
  }
}

/**
 * The backend a configuration names. Throws `WebSearchConfigError` saying what is wrong (an unknown
 * provider, a bad URL, a missing Brave key), so a misconfigured search fails at start, not per call.
 */
export function createSearchBackend(
  option: WebSearchOption,
  env: Record<string, string | undefined>,
): WebSearchBackend {
  if (typeof option === "object" && option !== null && "search" in option) {
    if (typeof option.search !== "function" || typeof option.name !== "string")
      throw new WebSearchConfigError(
        "webSearch: a backend object needs a name (string) and a search() function.",
      );
    return option;
  }
  const config = typeof option === "string" ? parseSpec(option) : option;
  if (config?.provider === "searxng") return createSearxngSearch(baseUrl(config.url, "searxng"));
  if (config?.provider === "brave") {
    const apiKey = config.apiKey ?? env.BRAVE_API_KEY ?? env.BRAVE_SEARCH_API_KEY;
    if (!apiKey)
      throw new WebSearchConfigError(
        'webSearch: Brave Search needs an API key: set BRAVE_API_KEY, or give { provider: "brave", apiKey }.',
      );
    return createBraveSearch(apiKey, config.url ? baseUrl(config.url, "brave") : undefined);
  }
  throw new WebSearchConfigError(
    `webSearch: unknown search backend ${JSON.stringify(option)}; use "searxng:<url>", "brave", { provider: "searxng", url }, { provider: "brave", apiKey } or an object with search().`,
  );
}

/** `searxng:URL`, `brave` or `brave:URL`. */
function parseSpec(spec: string): Exclude<WebSearchOption, string | WebSearchBackend> | undefined {
  const colon = spec.indexOf(":");
  const provider = (colon === -1 ? spec : spec.slice(0, colon)).trim().toLowerCase();
  const url = colon === -1 ? undefined : spec.slice(colon + 1).trim();
  if (provider === "searxng") {
    if (!url)
      throw new WebSearchConfigError(
        'webSearch: "searxng" needs the instance\'s URL: searxng:http://host:8888',
      );
    return { provider, url };
  }
  if (provider === "brave") return { provider, url: url || undefined };
  return undefined;
}

function baseUrl(text: string, provider: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebSearchConfigError(`webSearch: ${JSON.stringify(text)} is not a URL for ${provider}.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new WebSearchConfigError(
      `webSearch: the ${provider} URL must be http or https (got ${url.protocol}).`,
    );
  return url;
}
