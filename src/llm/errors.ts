/**
 * Typed provider errors. One class with a `kind`, so callers switch on data instead of `instanceof`
 * chains, and a marker so `isProviderError` works across duplicate copies of the package.
 */

/** What went wrong with a model call. */
export type ProviderErrorKind =
  | "rate_limit"
  | "overloaded"
  | "server"
  | "context_overflow"
  | "authentication"
  | "invalid_request"
  | "not_found"
  | "network"
  | "timeout"
  | "stream"
  | "invalid_tool_json"
  | "aborted"
  | "unknown";

import { GoatError } from "../errors.js";

const MARKER = Symbol.for("goat.ProviderError");

/** An error from a model provider, with what a caller needs to decide whether to retry. */
export class ProviderError extends GoatError {
  readonly [MARKER] = true;
  readonly kind: ProviderErrorKind;
  readonly provider: string;
  /** HTTP status, when the provider answered. */
  readonly status?: number;
  /** The delay the server asked for (retry-after), in milliseconds. */
  readonly retryAfterMs?: number;
  /** True once any part of the answer was streamed: such a call is never retried transparently. */
  readonly afterFirstDelta: boolean;

  constructor(init: {
    kind: ProviderErrorKind;
    provider: string;
    message: string;
    status?: number;
    retryAfterMs?: number;
    afterFirstDelta?: boolean;
    cause?: unknown;
  }) {
    super(init.message, { code: `provider_${init.kind}`, cause: init.cause });
    this.name = "ProviderError";
    this.kind = init.kind;
    this.provider = init.provider;
    this.status = init.status;
    this.retryAfterMs = init.retryAfterMs;
    this.afterFirstDelta = init.afterFirstDelta ?? false;
  }
}

/** True for a `ProviderError`, even one made by another copy of this package. */
export function isProviderError(value: unknown): value is ProviderError {
  return typeof value === "object" && value !== null && (value as { [MARKER]?: unknown })[MARKER] === true;
}

/**
 * Kinds worth another attempt after a wait (the retry layer retries them only while nothing of the
 * answer was streamed): `stream` covers a connection dropped or a malformed stream before any content.
 */
export function isRetryableKind(kind: ProviderErrorKind): boolean {
  return (
    kind === "rate_limit" ||
    kind === "overloaded" ||
    kind === "server" ||
    kind === "network" ||
    kind === "timeout" ||
    kind === "stream"
  );
}

const OVERFLOW_PATTERNS = [
  /prompt is too long/i,
  /context_length_exceeded/i,
  /maximum context length/i,
  /context length exceeded/i,
  /context window/i,
  /too many tokens/i,
  /input is too long/i,
  /exceeds the (?:model's )?(?:maximum )?context/i,
  /request too large/i,
  /reduce the length of the messages/i,
  /input token count .*exceeds the maximum/i, // Gemini
];

/** True when a provider's error text says the prompt did not fit the model's context window. */
export function isContextOverflowMessage(text: string): boolean {
  return OVERFLOW_PATTERNS.some((p) => p.test(text));
}

/**
 * Parses `retry-after-ms` / `retry-after` headers (seconds or an HTTP date) into milliseconds.
 * Returns undefined when neither is present or readable.
 */
export function parseRetryAfter(headers: Record<string, string | string[] | undefined>): number | undefined {
  const ms = first(headers["retry-after-ms"]);
  if (ms !== undefined) {
    const n = Number(ms);
    if (Number.isFinite(n) && n >= 0) return n;
  }
  const ra = first(headers["retry-after"]);
  if (ra === undefined) return undefined;
  const seconds = Number(ra);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(ra);
  if (Number.isFinite(date)) return Math.max(0, date - Date.now());
  return undefined;
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** Maps an HTTP error status and body text to an error kind. */
export function kindForStatus(status: number, bodyText: string): ProviderErrorKind {
  if (isContextOverflowMessage(bodyText) && (status === 400 || status === 413 || status === 422))
    return "context_overflow";
  if (status === 429) return "rate_limit";
  if (status === 529) return "overloaded";
  if (status === 401 || status === 403) return "authentication";
  if (status === 404) return "not_found";
  if (status === 413) return "context_overflow";
  if (status >= 500) return "server";
  if (status >= 400) return "invalid_request";
  return "unknown";
}
