/**
 * The HTTP transport of the providers: POST a JSON body over `node:http`/`node:https` with a keep-alive
 * agent, turn a non-2xx answer into a typed `ProviderError`, and read a 2xx answer as SSE events.
 *
 * Why not `fetch` or the official SDKs: a warm `fetch` costs about three times the CPU of `node:http`
 * per streamed call, and the SDKs add their own retries on top of ours (see bench/provider.mjs).
 */
import http from "node:http";
import https from "node:https";
import { urlToHttpOptions } from "node:url";
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
  // Created on first use: a provider speaks one scheme, and hundreds of concurrent sessions each
  // building an agent they never use is measurable start-up cost.
  let httpAgent: http.Agent | undefined;
  let httpsAgent: https.Agent | undefined;
  const agents: Agents = {
    http: () => (httpAgent ??= new http.Agent({ keepAlive: true })),
    https: () => (httpsAgent ??= new https.Agent({ keepAlive: true })),
  };
  // Parsed once per URL (a provider posts to the same one every call), not once per request.
  let lastUrl = "";
  let lastTarget: Target | undefined;
  return {
    async post(url, headers, body, signal) {
      if (signal?.aborted) throw abortedError(provider);
      if (url !== lastUrl || !lastTarget) {
        const parsed = new URL(url);
        lastTarget = { url: parsed, secure: parsed.protocol === "https:", options: urlToHttpOptions(parsed) };
        lastUrl = url;
      }
      const target = lastTarget;
      const res = await send(provider, agents, target, headers, body, signal, true);
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 300) return res;
      throw await errorFromResponse(provider, res, signal);
    },
  };
}

/** A transport's keep-alive agents, each made when first needed. */
interface Agents {
  http: () => http.Agent;
  https: () => https.Agent;
}

/** A parsed request URL and its `http.request` options. */
interface Target {
  url: URL;
  secure: boolean;
  options: http.RequestOptions;
}

function send(
  provider: string,
  agents: Agents,
  target: Target,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal | undefined,
  mayRetryStaleSocket: boolean,
): Promise<http.IncomingMessage> {
  const secure = target.secure;
  const lib = secure ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request({
      ...target.options,
      method: "POST",
      agent: secure ? agents.https() : agents.http(),
      headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body) },
    });
    const onAbort = (): void => {
      req.destroy(abortedError(provider));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    let answered = false;
    req.once("response", (res) => {
      answered = true;
      signal?.removeEventListener("abort", onAbort);
      resolve(res);
    });
    req.on("error", (err: NodeJS.ErrnoException) => {
      // After the answer began, failures surface through the response (see openSse).
      if (answered) return;
      answered = true;
      signal?.removeEventListener("abort", onAbort);
      if (signal?.aborted) return reject(abortedError(provider));
      // A kept-alive socket the server closed while idle fails before any answer: Node's documented
      // remedy is to retry once on a fresh socket. The request never reached the model.
      if (mayRetryStaleSocket && req.reusedSocket && err.code === "ECONNRESET") {
        send(provider, agents, target, headers, body, signal, false).then(resolve, reject);
        return;
      }
      reject(networkError(provider, target.url, err));
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

/** Pulls the events of an SSE response, a batch at a time. */
export interface SseReader {
  /** The events parsed since the last call (waiting for the next chunk if none); undefined at the end. */
  next(): Promise<SseEvent[] | undefined>;
  /** Stops reading; destroys the response unless it was read to its end. */
  close(): void;
}

/**
 * Reads an SSE response. A connection that closes or fails mid-body rejects `next()` with a `stream`
 * error (or `aborted` when `signal` fired); `afterFirstDelta` tells whether the caller had already
 * yielded content. Listeners instead of the stream's async iterator, and batches instead of one
 * promise per event: this is the per-token hot path (see bench/provider.mjs).
 */
export function openSse(
  provider: string,
  res: http.IncomingMessage,
  signal: AbortSignal | undefined,
  afterFirstDelta: () => boolean,
): SseReader {
  let ready: SseEvent[] = [];
  let done = false;
  let failure: ProviderError | undefined;
  let waiter: { resolve: (v: SseEvent[] | undefined) => void; reject: (e: unknown) => void } | undefined;
  const parser = createSseParser((e) => {
    ready.push(e);
  });

  const wake = (): void => {
    const w = waiter;
    if (!w) return;
    if (ready.length > 0) {
      waiter = undefined;
      const batch = ready;
      ready = [];
      w.resolve(batch);
    } else if (failure) {
      waiter = undefined;
      w.reject(failure);
    } else if (done) {
      waiter = undefined;
      w.resolve(undefined);
    }
  };
  const fail = (err: unknown): void => {
    if (done || failure) return;
    failure = signal?.aborted
      ? abortedError(provider)
      : streamError(
          provider,
          `the connection dropped mid-answer (${(err as Error)?.message ?? err})`,
          afterFirstDelta(),
          err,
        );
    detach();
    wake();
  };
  const onData = (chunk: string): void => {
    parser.push(chunk);
    wake();
  };
  const onEnd = (): void => {
    parser.end();
    done = true;
    // The other listeners stay: after the end they do nothing, and a late socket error still finds one.
    signal?.removeEventListener("abort", onAbort);
    wake();
  };
  const onClose = (): void => {
    if (!res.complete) fail(new Error("connection closed"));
  };
  const onAbort = (): void => {
    res.destroy(abortedError(provider));
    fail(abortedError(provider));
  };
  const detach = (): void => {
    res.off("data", onData);
    res.off("end", onEnd);
    res.off("error", fail);
    res.on("error", ignore); // a late socket error after we stopped listening must not crash the process
    res.off("close", onClose);
    signal?.removeEventListener("abort", onAbort);
  };

  res.setEncoding("utf8");
  res.on("data", onData);
  res.on("end", onEnd);
  res.on("error", fail);
  res.on("close", onClose);
  signal?.addEventListener("abort", onAbort, { once: true });

  return {
    next() {
      if (ready.length > 0) {
        const batch = ready;
        ready = [];
        return Promise.resolve(batch);
      }
      if (failure) return Promise.reject(failure);
      if (done) return Promise.resolve(undefined);
      return new Promise((resolve, reject) => {
        waiter = { resolve, reject };
      });
    },
    close() {
      if (!done) {
        detach();
        if (!res.destroyed) res.destroy();
      }
    },
  };
}

function ignore(): void {}

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

/**
 * The error for a call to a provider's public API without a key: said before any request is sent
 * (and never retried), naming the variables to set.
 */
export function missingKeyError(provider: string, keyVar: string, urlVar: string): ProviderError {
  return new ProviderError({
    kind: "authentication",
    provider,
    message: `${provider}: no API key. Set ${keyVar} (or pass apiKey / getApiKey), or point ${urlVar} at a gateway that needs none.`,
  });
}
