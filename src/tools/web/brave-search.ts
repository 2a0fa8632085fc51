/**
 * Brave Search as a WebSearch backend, through its Web Search API:
 * `GET https://api.search.brave.com/res/v1/web/search?q=…&count=N` with the key in
 * `X-Subscription-Token`. Its snippets carry `<strong>` marks around the matched words; they are
 * removed, as is any other markup.
 */
import { getJson } from "./get-json.js";
import type { WebSearchBackend, WebSearchResult } from "./search-types.js";

const DEFAULT_URL = "https://api.search.brave.com/res/v1/web/search";
const TIMEOUT_MS = 30_000;
/** The most results Brave returns for one request. */
const MAX_COUNT = 20;

/** A backend for Brave Search with `apiKey`; `endpoint` replaces the API's URL (a proxy, a test server). */
export function createBraveSearch(apiKey: string, endpoint?: URL): WebSearchBackend {
  return {
    name: "brave",
    async search(query, { signal, maxResults, allowedDomains }) {
      const url = new URL(endpoint?.href ?? DEFAULT_URL);
      const q = allowedDomains?.length === 1 ? `${query} site:${allowedDomains[0]}` : query;
      url.searchParams.set("q", q);
      url.searchParams.set("count", String(Math.min(MAX_COUNT, Math.max(1, maxResults))));
      const json = await getJson(url, {
        headers: { "x-subscription-token": apiKey },
        signal,
        timeoutMs: TIMEOUT_MS,
        describe: (status) =>
          status === 401 || status === 403
            ? `Brave Search refused the API key (${status}): check BRAVE_API_KEY.`
            : status === 429
              ? "Brave Search's rate limit was hit (429): wait before searching again."
              : undefined,
      });
      const results = (json as { web?: { results?: unknown } }).web?.results;
      // A query with no web results has no `web` section at all.
      if (results === undefined) return [];
      if (!Array.isArray(results)) throw new Error("Brave Search sent a web.results that is not a list.");
      return results
        .flatMap((r): WebSearchResult[] => {
          const item = r as Record<string, unknown>;
          if (typeof item.url !== "string") return [];
          const title =
            typeof item.title === "string" && item.title !== "" ? stripTags(item.title) : item.url;
          const snippet = typeof item.description === "string" ? stripTags(item.description) : undefined;
          const age = typeof item.age === "string" ? item.age : undefined;
          return [{ title, url: item.url, snippet: snippet || undefined, age }];
        })
        .slice(0, maxResults);
    },
  };
}

function stripTags(text: string): string {
  return text
    .replace(/<[^>]*>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .trim();
}
