/**
 * What a WebSearch backend is: the interface a search service implements and the results it gives.
 * The built-in backends (`searxng.ts`, `brave-search.ts`) implement it and `search-backend.ts`
 * chooses one by configuration.
 */

/** One search result. */
export interface WebSearchResult {
  title: string;
  url: string;
  /** A short excerpt of the page, as the search service gives it (plain text). */
  snippet?: string;
  /** When the page was published or last changed, as the service says it (free text). */
  age?: string;
}

/** What a search is asked with. */
export interface WebSearchRequest {
  signal: AbortSignal;
  /** Most results wanted; a backend may return fewer. */
  maxResults: number;
  /**
   * Domains the model asked to search only (`allowed_domains`). A backend may use them to narrow the
   * query (`site:`); the tool filters the results by them in any case, and by `blocked_domains`.
   */
  allowedDomains?: readonly string[];
}

/** A search service WebSearch can use. Implement it to plug in your own. */
export interface WebSearchBackend {
  /** Shown to the model and in results ("searxng", "brave", yours). */
  readonly name: string;
  /** Runs one search. Throws with a message the model can act on when the service fails. */
  search(query: string, request: WebSearchRequest): Promise<WebSearchResult[]>;
}
