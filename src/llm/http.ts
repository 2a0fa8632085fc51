/**
 * The HTTP transport of the providers: POST a JSON body over `node:http`/`node:https` with a keep-alive
 * agent, turn a non-2xx answer into a typed `ProviderError`, and read a 2xx answer as SSE events.
 *
 * Why not `fetch` or the official SDKs: a warm `fetch` costs about three times the CPU of `node:http`
 * per streamed call, and the SDKs add their own retries on top of ours (see bench/provider.mjs).
 */
import http from "node:http";
import https from "node:https";
import type { ProviderErrorKind } from "./errors.js";
import { isContextOverflowMessage, kindForStatus, ProviderError, parseRetryAfter } from "./errors.js";
import { createSseParser, type SseEvent } from "./sse.js";

/** Sends requests for one provider instance, reusing its connections. */
export interface HttpTransport {
  /**
   * POSTs `body` (already JSON) and resolves with the response once the server answered 2xx.
   * Rejects with a `ProviderError`: the server's error for non-2xx, `network` when the server could not
   * be reached, `aborted` when `signal` fired.
   */
  post(
    url: string,
    headers: Record<string, string>,
    body: string,
    signal?: AbortSignal,
  ): Promise<http.IncomingMessage>;
}

/** Creates a transport with its own keep-alive agents, so providers never share sockets. */
export function createHttpTransport(provider: string): HttpTransport {
  const agents = {
    http: new http.Agent({ keepAlive: true }),
    https: new https.Agent({ keepAlive: true }),
  };
  return {
    async post(url, headers, body, signal) {
      if (signal?.aborted) throw abortedError(provider);
      const target = new URL(url);
      const res = await send(provider, agents, target, headers, body, signal, true);
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 300) return res;
      throw await errorFromResponse(provider, res, signal);
    },
  };
}

function send(
  provider: string,
  agents: { http: http.Agent; https: https.Agent },
  target: URL,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal | undefined,
  mayRetryStaleSocket: boolean,
): Promise<http.IncomingMessage> {
  const secure = target.protocol === "https:";
  const lib = secure ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(target, {
      method: "POST",
      agent: secure ? agents.https : agents.http,
      headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body) },
    });
    const onAbort = (): void => {
      req.destroy(abortedError(provider));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    req.once("response", (res) => {
      signal?.removeEventListener("abort", onAbort);
      resolve(res);
    });
    req.once("error", (err: NodeJS.ErrnoException) => {
      signal?.removeEventListener("abort", onAbort);
      if (signal?.aborted) return reject(abortedError(provider));
      // A kept-alive socket the server closed while idle fails before any answer: Node's documented
      // remedy is to retry once on a fresh socket. The request never reached the model.
      if (mayRetryStaleSocket && req.reusedSocket && err.code === "ECONNRESET") {
        send(provider, agents, target, headers, body, signal, false).then(resolve, reject);
        return;
      }
      reject(networkError(provider, target, err));
    });
    req.end(body);
  });
}

/** The error for a call the caller's AbortSignal cancelled. */
export function abortedError(provider: string): ProviderError {
  return new ProviderError({ kind: "aborted", provider, message: `${provider}: request aborted` });
}

function networkError(provider: string, target: URL, err: NodeJS.ErrnoException): ProviderError {
  const code = err.code ? `${err.code} ` : "";
  return new ProviderError({
    kind: "network",
    provider,
    cause: err,
    message: `${provider}: could not reach ${target.origin} (${code}${err.message}); check the base URL and that the server is running`,
  });
}

const MAX_ERROR_BODY = 64 * 1024;

async function errorFromResponse(
  provider: string,
  res: http.IncomingMessage,
  signal: AbortSignal | undefined,
): Promise<ProviderError> {
  const status = res.statusCode ?? 0;
  let text = "";
  try {
    text = await readBody(res, signal);
  } catch {
    if (signal?.aborted) return abortedError(provider);
    // The status alone is still worth reporting when the body could not be read.
  }
  const detail = errorDetail(text);
  const kind = kindForStatus(status, text);
  const retryAfterMs = parseRetryAfter(res.headers);
  const message = `${provider} API error ${status}${detail.type ? ` (${detail.type})` : ""}: ${detail.message || res.statusMessage || "no error message"}${hintFor(kind, provider)}`;
  return new ProviderError({ kind, provider, status, retryAfterMs, message });
}

function readBody(res: http.IncomingMessage, signal: AbortSignal | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const onAbort = (): void => {
      res.destroy();
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => {
      if (text.length < MAX_ERROR_BODY) text += chunk;
    });
    res.once("end", () => {
      signal?.removeEventListener("abort", onAbort);
      resolve(text);
    });
    res.once("error", (err) => {
      signal?.removeEventListener("abort", onAbort);
      reject(err);
    });
    res.once("close", () => {
      signal?.removeEventListener("abort", onAbort);
      if (!res.complete) reject(new Error("connection closed while reading the error body"));
    });
  });
}

/** The provider's own error type and message from an error body (Anthropic, OpenAI or gateway shapes). */
export function errorDetail(text: string): { type?: string; message: string } {
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    return { message: text.trim().slice(0, 500) };
  }
  const err = json?.error ?? json;
  if (typeof err === "string") return { message: err };
  const message =
    typeof err?.message === "string"
      ? err.message
      : typeof json?.detail === "string"
        ? json.detail
        : text.slice(0, 500);
  const type =
    typeof err?.code === "string" ? err.code : typeof err?.type === "string" ? err.type : undefined;
  return { type, message };
}

function hintFor(kind: ProviderErrorKind, provider: string): string {
  switch (kind) {
    case "authentication":
      return ` (check the API key for "${provider}": the apiKey option, getApiKey, or the provider's *_API_KEY variable)`;
    case "not_found":
      return " (check the model name and the base URL)";
    case "context_overflow":
      return " (the conversation no longer fits the model's context window: compact or shorten it)";
    default:
      return "";
  }
}

/** Maps an error `type`/`code` sent inside a stream (Anthropic `error` event, OpenAI `{error}`) to a kind. */
export function kindForStreamError(type: string | undefined, message: string): ProviderErrorKind {
  if (isContextOverflowMessage(`${type ?? ""} ${message}`)) return "context_overflow";
  switch (type) {
    case "overloaded_error":
      return "overloaded";
    case "rate_limit_error":
    case "rate_limit_exceeded":
    case "insufficient_quota":
      return "rate_limit";
    case "api_error":
    case "server_error":
    case "internal_server_error":
      return "server";
    case "authentication_error":
    case "permission_error":
      return "authentication";
    case "not_found_error":
      return "not_found";
    case "invalid_request_error":
      return "invalid_request";
    case "request_too_large":
      return "context_overflow";
    default:
      return "stream";
  }
}

/**
 * Reads an SSE response event by event. A connection that closes or fails mid-body rejects with a
 * `stream` error (or `aborted` when `signal` fired); `afterFirstDelta` tells whether the caller had
 * already yielded content. Stopping the iteration early destroys the response.
 */
export async function* readSse(
  provider: string,
  res: http.IncomingMessage,
  signal: AbortSignal | undefined,
  afterFirstDelta: () => boolean,
): AsyncGenerator<SseEvent> {
  const queue: SseEvent[] = [];
  const parser = createSseParser((e) => {
    queue.push(e);
  });
  const onAbort = (): void => {
    res.destroy(abortedError(provider));
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  let finished = false;
  try {
    res.setEncoding("utf8");
    try {
      for await (const chunk of res as AsyncIterable<string>) {
        parser.push(chunk);
        // Index walk instead of shift(): a chunk usually carries several events.
        for (let i = 0; i < queue.length; i++) yield queue[i];
        queue.length = 0;
      }
    } catch (err) {
      if (signal?.aborted) throw abortedError(provider);
      throw streamError(
        provider,
        `the connection dropped mid-answer (${(err as Error).message})`,
        afterFirstDelta(),
        err,
      );
    }
    parser.end();
    for (let i = 0; i < queue.length; i++) yield queue[i];
    finished = true;
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (!finished && !res.destroyed) res.destroy();
  }
}

/** A `stream` error: the answer was cut off or unreadable. */
export function streamError(
  provider: string,
  what: string,
  afterFirstDelta: boolean,
  cause?: unknown,
): ProviderError {
  return new ProviderError({
    kind: "stream",
    provider,
    afterFirstDelta,
    cause,
    message: `${provider}: ${what}${afterFirstDelta ? " after part of the answer was streamed" : ""}`,
  });
}

/** Parses one SSE `data:` payload, turning bad JSON into a `stream` error. */
export function parseData(provider: string, data: string, afterFirstDelta: boolean): any {
  try {
    return JSON.parse(data);
  } catch (err) {
    throw streamError(
      provider,
      `malformed stream chunk ${JSON.stringify(data.slice(0, 200))}`,
      afterFirstDelta,
      err,
    );
  }
}
