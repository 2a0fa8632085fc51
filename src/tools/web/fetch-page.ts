/**
 * WebFetch's HTTP GET, on Node's own `http`/`https`: one fresh connection per hop whose address the
 * guard checked, redirects within the same host followed (at most `maxRedirects`, each hop checked
 * again), a redirect to another host handed back instead of followed (so the next host goes through
 * permissions as a new call, as in Claude Code), the body read as a stream and cut at `maxBytes`
 * (decompressed bytes: a small gzip bomb cannot grow past the cap), and a time limit on the whole
 * fetch besides the caller's signal.
 */
import http from "node:http";
import https from "node:https";
import { pipeline, type Readable, type Transform } from "node:stream";
import zlib from "node:zlib";
import { GoatError } from "../../errors.js";
import { checkHost, guardedLookup, type ResolveHost } from "./address-guard.js";

/** A page as fetched. */
export interface FetchedPage {
  kind: "page";
  /** The URL the body came from (after same-host redirects). */
  url: string;
  status: number;
  statusText: string;
  /** The media type, lower case, without parameters (`text/html`); "" when the server sent none. */
  mediaType: string;
  /** The `charset` parameter of the content type, if any. */
  charset?: string;
  /** The body, at most `maxBytes` (decompressed). */
  body: Buffer;
  /** True when the body went on past `maxBytes` and was cut there. */
  truncated: boolean;
}

/** A redirect to another host, not followed. */
export interface CrossHostRedirect {
  kind: "redirect";
  from: string;
  to: string;
  status: number;
}

/** How to fetch. */
export interface FetchPageOptions {
  signal: AbortSignal;
  /** Most body bytes read (decompressed); the rest is never read. */
  maxBytes: number;
  /** Most same-host redirects followed. */
  maxRedirects: number;
  /** The whole fetch (every hop, the body) must end within this, in ms. */
  timeoutMs: number;
  /** Whether a rule allows this host by name, which lets it be a non-public address. */
  hostAllowed: (hostname: string) => boolean;
  /** Sent with every request. */
  headers: Record<string, string>;
  /** Name resolution (default: the system's); the guard checks what it returns. */
  resolve?: ResolveHost;
}

/** A fetch that failed: the server could not be reached, took too long, or redirected too often. */
export class FetchError extends GoatError {
  override name = "FetchError";
  constructor(message: string) {
    super(message, { code: "fetch_failed" });
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * GETs `url`. Resolves with the page (any status) or a cross-host redirect. Rejects with
 * `BlockedAddressError`, `FetchError`, or the signal's abort reason.
 */
export async function fetchPage(
  url: URL,
  options: FetchPageOptions,
): Promise<FetchedPage | CrossHostRedirect> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([options.signal, timeout]);
  try {
    let current = url;
    for (let hop = 0; ; hop++) {
      const response = await requestOnce(current, options, signal);
      const location = response.headers.location;
      if (!REDIRECTS.has(response.statusCode ?? 0) || location === undefined) {
        return await readPage(current, response, options.maxBytes, signal);
      }
      response.destroy();
      let next: URL;
      try {
        next = new URL(location, current);
      } catch {
        throw new FetchError(`${current.href} redirected to an invalid URL (${JSON.stringify(location)}).`);
      }
      const status = response.statusCode ?? 0;
      if (!sameSite(current, next)) return { kind: "redirect", from: current.href, to: next.href, status };
      if (hop >= options.maxRedirects) {
        throw new FetchError(`${url.href} redirected more than ${options.maxRedirects} times; stopped.`);
      }
      current = next;
    }
  } catch (error) {
    if (timeout.aborted && !options.signal.aborted) {
      throw new FetchError(`Fetching ${url.href} took longer than ${options.timeoutMs / 1000} s; stopped.`);
    }
    if (options.signal.aborted) throw options.signal.reason ?? error;
    throw error;
  }
}

/**
 * Redirects followed without asking: the same host (or its `www.` form), the same port, and the same
 * scheme or an upgrade to https. Anything else is another site, which the user's permission for this
 * one does not cover, and credentials in a redirect are never followed.
 */
function sameSite(from: URL, to: URL): boolean {
  if (to.username || to.password) return false;
  const bare = (host: string) => host.replace(/^www\./, "");
  if (bare(from.hostname) !== bare(to.hostname)) return false;
  if (from.protocol === to.protocol) return from.port === to.port;
  return from.protocol === "http:" && to.protocol === "https:" && to.port === "";
}

/** One GET on a fresh connection, whose host the guard checks before and during the connection. */
function requestOnce(
  url: URL,
  options: FetchPageOptions,
  signal: AbortSignal,
): Promise<http.IncomingMessage> {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return Promise.reject(new FetchError(`${url.href}: only http and https URLs can be fetched.`));
  }
  const allowed = options.hostAllowed(url.hostname);
  try {
    checkHost(url.hostname, allowed);
  } catch (error) {
    return Promise.reject(error);
  }
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(url, {
      method: "GET",
      headers: options.headers,
      // No keep-alive pool: every hop connects anew, so every hop goes through the guard's lookup.
      agent: false,
      lookup: guardedLookup(url.hostname, allowed, options.resolve),
      signal,
    });
    request.once("response", resolve);
    request.once("error", (error: NodeJS.ErrnoException) => {
      if (signal.aborted || error.name === "BlockedAddressError") reject(error);
      else reject(new FetchError(`Could not fetch ${url.href}: ${describeNetworkError(error)}.`));
    });
    request.end();
  });
}

/** Reads the body up to `maxBytes` (decompressing gzip, deflate and br), then closes the connection. */
async function readPage(
  url: URL,
  response: http.IncomingMessage,
  maxBytes: number,
  signal: AbortSignal,
): Promise<FetchedPage> {
  const [mediaType, ...params] = (response.headers["content-type"] ?? "").split(";");
  const charset = params
    .map((p) => /^\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(p)?.[1])
    .find((c) => c !== undefined);
  const body: Buffer[] = [];
  let size = 0;
  let truncated = false;
  const stream = decoded(response);
  try {
    for await (const chunk of stream) {
      if (signal.aborted) break;
      const buffer = chunk as Buffer;
      if (size + buffer.length > maxBytes) {
        body.push(buffer.subarray(0, maxBytes - size));
        size = maxBytes;
        truncated = true;
        break;
      }
      body.push(buffer);
      size += buffer.length;
    }
  } catch (error) {
    if (signal.aborted) throw signal.reason ?? error;
    throw new FetchError(`Reading ${url.href} failed: ${(error as Error).message}.`);
  } finally {
    // Leaving early (the cap, an abort) closes the connection: the rest is never downloaded.
    stream.destroy();
    response.destroy();
  }
  if (signal.aborted) throw signal.reason;
  return {
    kind: "page",
    url: url.href,
    status: response.statusCode ?? 0,
    statusText: response.statusMessage ?? "",
    mediaType: mediaType.trim().toLowerCase(),
    charset: charset?.toLowerCase(),
    body: Buffer.concat(body, size),
    truncated,
  };
}

/** The response body, decompressed when the server compressed it. */
function decoded(response: http.IncomingMessage): Readable {
  const decoder = decoderFor(response.headers["content-encoding"]);
  // pipeline, not pipe: a connection that breaks mid-body fails the decoder too, instead of leaving it waiting.
  return decoder ? pipeline(response, decoder, () => {}) : response;
}

function decoderFor(encoding: string | undefined): Transform | undefined {
  switch ((encoding ?? "").trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip();
    case "deflate":
      return zlib.createInflate();
    case "br":
      return zlib.createBrotliDecompress();
    default:
      return undefined;
  }
}

function describeNetworkError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "the host name does not resolve";
    case "ECONNREFUSED":
      return "the connection was refused";
    case "ECONNRESET":
      return "the connection was reset";
    case "ETIMEDOUT":
      return "the connection timed out";
    default:
      return error.message;
  }
}
