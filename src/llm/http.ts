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
import { kindForAwsException } from "./aws-errors.js";
import type { ProviderErrorKind } from "./errors.js";
import {
  isContextOverflowMessage,
  isProviderError,
  kindForStatus,
  ProviderError,
  parseRetryAfter,
} from "./errors.js";
import { createTunnelAgent, type ProxySetting, parseProxyUrl, proxyFor } from "./proxy.js";
import { abortedError } from "./sse-reader.js";
import { type StallTimer, startStallTimer } from "./stall-timer.js";
import {
  describeMs,
  type ProviderTimeouts,
  type ResolvedTimeouts,
  resolveTimeouts,
  TIMEOUT_ENV,
} from "./timeouts.js";

/** Sends requests for one provider instance, reusing its connections. */
export interface HttpTransport {
  /**
   * POSTs `body` (already JSON) and resolves with the response once the server answered 2xx.
   * Rejects with a `ProviderError`: the server's error for non-2xx, `network` when the server could not
   * be reached, `timeout` when it did not connect or answer in time, `aborted` when `signal` fired.
   */
  post(
    url: string,
    headers: Record<string, string>,
    body: string,
    signal?: AbortSignal,
  ): Promise<http.IncomingMessage>;
  /** The stall limits in force (the SSE reader applies `idleMs`). */
  readonly timeouts: ResolvedTimeouts;
  /**
   * Closes the kept-alive sockets and drops the agents holding them (each keeps its sockets, request
   * and last body alive until the server hangs up). A later `post` opens new connections.
   */
  close(): void;
}

/** How a transport reaches its server. */
export interface HttpTransportOptions {
  /** Stall limits; unset ones come from the environment, then the defaults (timeouts.ts). */
  timeouts?: ProviderTimeouts;
  /** Where `GOAT_*_TIMEOUT_MS` and the proxy variables are read; default `process.env`. */
  env?: Record<string, string | undefined>;
  /** A proxy URL for every call, `false` for none; default `HTTPS_PROXY` / `HTTP_PROXY` / `NO_PROXY`. */
  proxy?: ProxySetting;
}

/** Creates a transport with its own keep-alive agents, so providers never share sockets. */
export function createHttpTransport(provider: string, options: HttpTransportOptions = {}): HttpTransport {
  const env = options.env ?? process.env;
  const timeouts = resolveTimeouts(options.timeouts, env);
  if (typeof options.proxy === "string") parseProxyUrl(options.proxy); // a bad URL fails now, not per call
  // Created on first use, one per scheme and proxy: a provider speaks one scheme, and hundreds of
  // concurrent sessions each building an agent they never use is measurable start-up cost.
  const agents = new Map<string, http.Agent>();
  const agentFor = (secure: boolean, proxy: URL | undefined): http.Agent => {
    const key = `${secure ? "https" : "http"} ${proxy?.href ?? ""}`;
    let agent = agents.get(key);
    if (!agent) {
      agent = proxy
        ? createTunnelAgent(secure, proxy, timeouts.connectMs)
        : secure
          ? new https.Agent({ keepAlive: true })
          : new http.Agent({ keepAlive: true });
      agents.set(key, agent);
    }
    return agent;
  };
  // Parsed once per URL (a provider posts to the same one every call), not once per request, with
  // its agent and `http.request` options: a call only adds its headers.
  let lastUrl = "";
  let lastTarget: Target | undefined;
  const targetFor = (url: string): Target => {
    if (url === lastUrl && lastTarget) return lastTarget;
    const parsed = parseHttpUrl(provider, url);
    const secure = parsed.protocol === "https:";
    const proxy = proxyFor(parsed, options.proxy, env);
    const agent = agentFor(secure, proxy);
    lastTarget = {
      url: parsed,
      secure,
      proxy,
      request: { ...urlToHttpOptions(parsed), method: "POST", agent },
    };
    lastUrl = url;
    return lastTarget;
  };
  return {
    timeouts,
    close() {
      for (const agent of agents.values()) agent.destroy();
      agents.clear();
      lastTarget = undefined; // it holds a destroyed agent
    },
    post(url, headers, body, signal) {
      if (signal?.aborted) return Promise.reject(abortedError(provider));
      let target: Target;
      try {
        target = targetFor(url);
      } catch (err) {
        return Promise.reject(err);
      }
      // One promise per call: `send` settles it with the response or with the error it reads.
      return send({ provider, target, headers, body, signal, timeouts }, true);
    },
  };
}

/**
 * Parses a request URL, refusing what Node's http cannot send to: a base URL written without its
 * scheme (`127.0.0.1:4000`, `localhost:4000`) otherwise failed as a bare "Invalid URL" naming nothing.
 */
function parseHttpUrl(provider: string, url: string): URL {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed && (parsed.protocol === "http:" || parsed.protocol === "https:")) return parsed;
  throw new ProviderError({
    kind: "invalid_request",
    provider,
    message: `${provider}: "${url}" is not an http or https URL; check the provider's base URL (its baseURL, or the *_BASE_URL variable), e.g. http://127.0.0.1:4000`,
  });
}

/** A parsed request URL, its `http.request` options and the proxy it goes through. */
interface Target {
  url: URL;
  secure: boolean;
  proxy: URL | undefined;
  /** Everything `http.request` needs but the headers (it copies the object, never changes it). */
  request: http.RequestOptions;
}

/** One POST and what it needs. */
interface Call {
  provider: string;
  target: Target;
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal | undefined;
  timeouts: ResolvedTimeouts;
}

/**
 * Sends one request and resolves with the response head of a 2xx answer; any other status rejects
 * with the typed error its body describes. Two limits guard it: the connect limit
 * while the socket (its TLS session, its proxy tunnel) comes up, then the first-byte limit until the
 * headers arrive. A kept-alive socket is up at once. Both are stall timers (stall-timer.ts): time this
 * process spent busy with other work while the answer waited in the socket is not the provider's.
 */
function send(call: Call, mayRetryStaleSocket: boolean): Promise<http.IncomingMessage> {
  const { provider, target, signal, timeouts } = call;
  const secure = target.secure;
  const lib = secure ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(target.request);
    // Set one by one, as `http.request` would from an options object, without first copying the
    // call's headers into one. Set last, so ours win over a caller's differently spelt ones.
    const headers = call.headers;
    for (const name in headers) req.setHeader(name, headers[name]);
    req.setHeader("content-type", "application/json");
    req.setHeader("content-length", Buffer.byteLength(call.body));
    let timer: StallTimer | undefined;
    let connected = false;
    const stopTimer = (): void => {
      timer?.clear();
      timer = undefined;
    };
    const startTimer = (stage: "connect" | "first byte", ms: number): void => {
      stopTimer();
      if (ms > 0)
        timer = startStallTimer(ms, () => req.destroy(timeoutError(provider, target.url, stage, ms)));
    };
    const onConnected = (): void => {
      connected = true;
      startTimer("first byte", timeouts.firstByteMs);
    };
    // A tunnel is built before the request even gets its socket, so through a proxy the connect limit
    // runs from now; a direct socket is handed over at once and the limit starts with it.
    if (target.proxy) startTimer("connect", timeouts.connectMs);
    req.once("socket", (socket) => {
      // A fresh direct socket is still connecting; a kept-alive one, or a tunnel, is ready (and
      // secure: TLS sockets are reused only after their handshake, tunnels are handed over after it).
      if (!socket.connecting) return onConnected();
      startTimer("connect", timeouts.connectMs);
      // A host name is resolved first, on the thread pool where this process's own file work queues:
      // the provider's part starts when the address is known.
      socket.once("lookup", () => {
        if (!connected) startTimer("connect", timeouts.connectMs);
      });
      socket.once(secure ? "secureConnect" : "connect", onConnected);
    });
    const onAbort = (): void => {
      req.destroy(abortedError(provider));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    let answered = false;
    req.once("response", (res) => {
      answered = true;
      stopTimer();
      signal?.removeEventListener("abort", onAbort);
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 300) resolve(res);
      else errorFromResponse(provider, res, signal, timeouts.idleMs).then(reject, reject);
    });
    req.on("error", (err: NodeJS.ErrnoException) => {
      // After the answer began, failures surface through the response (see sse-reader.ts).
      if (answered) return;
      answered = true;
      stopTimer();
      signal?.removeEventListener("abort", onAbort);
      if (signal?.aborted) return reject(abortedError(provider));
      if (isProviderError(err)) return reject(err); // our own timeout
      // A kept-alive socket the server closed while idle fails before any answer: Node's documented
      // remedy is to retry once on a fresh socket. The request never reached the model.
      if (mayRetryStaleSocket && req.reusedSocket && err.code === "ECONNRESET") {
        send(call, false).then(resolve, reject);
        return;
      }
      reject(
        connected ? droppedBeforeAnswer(provider, target.url, err) : networkError(provider, target, err),
      );
    });
    req.end(call.body);
  });
}

function networkError(provider: string, target: Target, err: NodeJS.ErrnoException): ProviderError {
  const code = err.code ? `${err.code} ` : "";
  const via = target.proxy ? ` through the proxy ${target.proxy.origin}` : "";
  const check = target.proxy
    ? "check the proxy (HTTPS_PROXY, HTTP_PROXY, NO_PROXY or the proxy option) and the base URL"
    : "check the base URL and that the server is running";
  return new ProviderError({
    kind: "network",
    provider,
    cause: err,
    message:
      err.code === "ENOTFOUND"
        ? `${provider}: could not reach ${target.url.origin}${via}: the host name ${(err as { hostname?: string }).hostname ?? target.url.hostname} does not resolve (ENOTFOUND); ${check}`
        : `${provider}: could not reach ${target.url.origin}${via} (${code}${err.message}); ${check}`,
  });
}

/** The server accepted the connection and then closed it without answering. */
function droppedBeforeAnswer(provider: string, target: URL, err: NodeJS.ErrnoException): ProviderError {
  const code = err.code ? `${err.code} ` : "";
  return new ProviderError({
    kind: "network",
    provider,
    cause: err,
    message: `${provider}: ${target.origin} accepted the connection, then closed it before answering (${code}${err.message})`,
  });
}

function timeoutError(
  provider: string,
  target: URL,
  stage: "connect" | "first byte",
  ms: number,
): ProviderError {
  const what =
    stage === "connect"
      ? `could not connect to ${target.origin} within ${describeMs(ms)} (raise the limit with ${TIMEOUT_ENV.connectMs} or the providerTimeouts option)`
      : `${target.origin} sent no answer within ${describeMs(ms)} of the request (raise the limit with ${TIMEOUT_ENV.firstByteMs} or the providerTimeouts option)`;
  return new ProviderError({ kind: "timeout", provider, message: `${provider}: ${what}` });
}

const MAX_ERROR_BODY = 64 * 1024;

async function errorFromResponse(
  provider: string,
  res: http.IncomingMessage,
  signal: AbortSignal | undefined,
  idleMs: number,
): Promise<ProviderError> {
  const status = res.statusCode ?? 0;
  let text = "";
  try {
    text = await readBody(res, signal, idleMs);
  } catch {
    if (signal?.aborted) return abortedError(provider);
    // The status alone is still worth reporting when the body could not be read.
  }
  const detail = errorDetail(text);
  // AWS names the error in a header, which says more than the status (aws-errors.ts).
  const awsType = res.headers["x-amzn-errortype"];
  const kind =
    (typeof awsType === "string" ? kindForAwsException(awsType, detail.message) : undefined) ??
    kindForStatus(status, text);
  const retryAfterMs = parseRetryAfter(res.headers);
  const type = detail.type ?? (typeof awsType === "string" ? awsType.replace(/:.*$/, "") : undefined);
  const message = `${provider} API error ${status}${type ? ` (${type})` : ""}: ${detail.message || res.statusMessage || "no error message"}${hintFor(kind, provider)}`;
  return new ProviderError({ kind, provider, status, retryAfterMs, message });
}

/** Reads an error body; a body silent for `idleMs` is cut (the status alone is then reported). */
function readBody(
  res: http.IncomingMessage,
  signal: AbortSignal | undefined,
  idleMs: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const onAbort = (): void => {
      res.destroy();
    };
    const idle = idleMs > 0 ? startStallTimer(idleMs, () => res.destroy()) : undefined;
    const cleanUp = (): void => {
      idle?.clear();
      signal?.removeEventListener("abort", onAbort);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => {
      idle?.refresh();
      if (text.length < MAX_ERROR_BODY) text += chunk;
    });
    res.once("end", () => {
      cleanUp();
      resolve(text);
    });
    res.once("error", (err) => {
      cleanUp();
      reject(err);
    });
    res.once("close", () => {
      cleanUp();
      if (!res.complete) reject(new Error("connection closed while reading the error body"));
    });
  });
}

/** The provider's own error type and message from an error body (Anthropic, OpenAI or gateway shapes). */
function errorDetail(text: string): { type?: string; message: string } {
  // Any JSON at all: every field is checked before it is used.
  let json: ErrorBody | null | undefined;
  try {
    json = JSON.parse(text);
  } catch {
    return { message: text.trim().slice(0, 500) };
  }
  const err: string | ErrorFields | null | undefined = json?.error ?? json;
  if (typeof err === "string") return { message: err };
  const message =
    typeof err?.message === "string"
      ? err.message
      : typeof json?.detail === "string"
        ? json.detail
        : text.slice(0, 500);
  // Google answers {error: {code: 429, status: "RESOURCE_EXHAUSTED", message}}.
  const type =
    typeof err?.code === "string"
      ? err.code
      : typeof err?.type === "string"
        ? err.type
        : typeof err?.status === "string"
          ? err.status
          : undefined;
  return { type, message };
}

/** An error's fields, nested under `error` or (some gateways) at the top of the body. */
interface ErrorFields {
  message?: unknown;
  code?: unknown;
  type?: unknown;
  status?: unknown;
}

/** What an error body may hold, each field unchecked until read. */
interface ErrorBody extends ErrorFields {
  error?: string | ErrorFields | null;
  detail?: unknown;
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
