/**
 * SearXNG (a self-hosted metasearch engine) as a WebSearch backend, through its JSON API:
 * `GET <instance>/search?q=…&format=json`. The instance's settings must list `json` in
 * `search.formats`; when they do not, SearXNG answers 403, and the error says what to change.
 */
import { getJson } from "./get-json.js";
import type { WebSearchBackend, WebSearchResult } from "./search-types.js";

const TIMEOUT_MS = 30_000;

/** A backend for the SearXNG instance at `base` (its root URL, e.g. `http://127.0.0.1:8888`). */
export function createSearxngSearch(base: URL): WebSearchBackend {
  return {
    name: "searxng",
    async search(query, { signal, maxResults, allowedDomains }) {
      const url = new URL("search", base.href.endsWith("/") ? base : new URL(`${base.href}/`));
      // One allowed domain narrows the search itself; the tool filters by every domain anyway.
      const q = allowedDomains?.length === 1 ? `${query} site:${allowedDomains[0]}` : query;
      url.searchParams.set("q", q);
      url.searchParams.set("format", "json");
      const json = await getJson(url, {
        headers: {},
        signal,
        timeoutMs: TIMEOUT_MS,
        describe: (status) =>
          status === 403
            ? `The SearXNG instance at ${base.origin} refused the JSON format (403): add "json" to search.formats in its settings.yml.`
            : undefined,
      });
      const results = (json as { results?: unknown }).results;
      if (!Array.isArray(results))
        throw new Error(`The SearXNG instance at ${base.origin} sent no results list.`);
      return results
        .flatMap((r): WebSearchResult[] => {
          const item = r as Record<string, unknown>;
          if (typeof item.url !== "string") return [];
          const title = typeof item.title === "string" && item.title !== "" ? item.title : item.url;
          const snippet = typeof item.content === "string" && item.content !== "" ? item.content : undefined;
          const age = typeof item.publishedDate === "string" ? item.publishedDate : undefined;
          return [{ title, url: item.url, snippet, age }];
        })
        .slice(0, maxResults);
    },
  };
}
