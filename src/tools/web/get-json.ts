/**
 * A JSON GET for the search backends: the same bounded fetch as WebFetch (a time limit, a cap on the
 * body), to a host the user configured, which may be on this machine (a local SearXNG), so no address
 * is refused. A non-2xx answer or a body that is not JSON is an error saying which.
 */
import { FetchError, fetchPage } from "./fetch-page.js";

/** Most bytes of a search answer read. */
const MAX_JSON_BYTES = 4 * 1024 * 1024;

/** GETs `url` and parses its JSON. `describe` turns a non-2xx status into the error's message. */
export async function getJson(
  url: URL,
  options: {
    headers: Record<string, string>;
    signal: AbortSignal;
    timeoutMs: number;
    describe?: (status: number, body: string) => string | undefined;
  },
): Promise<unknown> {
  const page = await fetchPage(url, {
    signal: options.signal,
    maxBytes: MAX_JSON_BYTES,
    maxRedirects: 3,
    timeoutMs: options.timeoutMs,
    hostAllowed: () => true,
    headers: { accept: "application/json", "accept-encoding": "gzip", ...options.headers },
  });
  if (page.kind === "redirect") throw new FetchError(`${page.from} redirected to another host (${page.to}).`);
  const text = page.body.toString("utf8");
  if (page.status < 200 || page.status > 299) {
    const said = options.describe?.(page.status, text);
    throw new FetchError(
      said ?? `${url.origin} answered ${page.status} ${page.statusText}: ${text.slice(0, 300)}`,
    );
  }
  if (page.truncated) throw new FetchError(`${url.origin} sent more than ${MAX_JSON_BYTES} bytes.`);
  try {
    return JSON.parse(text);
  } catch {
    throw new FetchError(`${url.origin} did not answer with JSON (${page.mediaType || "no content type"}).`);
  }
}
