/**
 * What a fetched body is and its text: HTML (turned into markdown), text that is passed through as it
 * is (plain text, JSON, XML, CSV, source code…), or binary, which WebFetch refuses with a clear error
 * instead of handing the model bytes it cannot read. The charset comes from the `Content-Type`
 * header, else an HTML page's `<meta charset>`, else UTF-8.
 */
import { TextDecoder } from "node:util";
import type { FetchedPage } from "./fetch-page.js";

/** How a body is handled. */
export type BodyKind = "html" | "text" | "binary";

const TEXT_APPLICATION_TYPES = new Set([
  "application/json",
  "application/ld+json",
  "application/xml",
  "application/javascript",
  "application/ecmascript",
  "application/x-javascript",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/x-sh",
  "application/sql",
  "application/graphql",
  "application/x-ndjson",
  "application/csv",
  "application/rss+xml",
  "application/atom+xml",
]);

/** Decides how a page's body is handled, from its media type, or by sniffing when it has none. */
export function bodyKind(page: Pick<FetchedPage, "mediaType" | "body">): BodyKind {
  const type = page.mediaType;
  if (type === "text/html" || type === "application/xhtml+xml") return "html";
  if (type.startsWith("text/") || TEXT_APPLICATION_TYPES.has(type)) return "text";
  if (/^application\/[\w.-]+\+(json|xml)$/.test(type)) return "text";
  if (type === "" || type === "application/octet-stream" || type === "binary/octet-stream")
    return sniff(page.body);
  return "binary";
}

/** The body as text, decoded with its charset (a bad or unknown charset falls back to UTF-8). */
export function bodyText(page: Pick<FetchedPage, "body" | "charset">, kind: BodyKind): string {
  const charset = page.charset ?? (kind === "html" ? metaCharset(page.body) : undefined) ?? "utf-8";
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset);
  } catch {
    decoder = new TextDecoder("utf-8");
  }
  return decoder.decode(page.body);
}

/** A body with no useful type: binary when it has NUL bytes or is not UTF-8, else HTML or text. */
function sniff(body: Buffer): BodyKind {
  const head = body.subarray(0, 4096);
  if (head.includes(0)) return "binary";
  try {
    // The last few bytes may be a character cut in two by the sample's end: leave them out.
    new TextDecoder("utf-8", { fatal: true }).decode(head.subarray(0, Math.max(0, head.length - 4)));
  } catch {
    return "binary";
  }
  const start = head.toString("utf8", 0, 512).trimStart().toLowerCase();
  return start.startsWith("<!doctype html") || start.startsWith("<html") ? "html" : "text";
}

/** The charset an HTML page declares in its first kilobytes (`<meta charset>` or http-equiv). */
function metaCharset(body: Buffer): string | undefined {
  const head = body.toString("latin1", 0, 2048);
  return /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(head)?.[1]?.toLowerCase();
}
