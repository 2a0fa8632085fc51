/**
 * How long a model call may wait at each stage before it is declared stalled. Three limits, because a
 * stall looks different at each: a server that never completes the TCP/TLS handshake (`connectMs`),
 * one that accepts the request and never answers (`firstByteMs`), and a stream that goes silent
 * half-way (`idleMs`). None of them caps the whole call: a slow answer whose bytes keep coming (a long
 * stream of thinking, Anthropic's pings) is never cut.
 */

import { InvalidOptionError } from "../errors.js";

/** Stall limits of a provider's HTTP calls, in milliseconds. 0 turns a limit off. */
export interface ProviderTimeouts {
  /** TCP connect plus TLS handshake (and the proxy's CONNECT). Default 30 s, env `GOAT_CONNECT_TIMEOUT_MS`. */
  connectMs?: number;
  /** From the request sent to the response headers. Default 60 s, env `GOAT_FIRST_BYTE_TIMEOUT_MS`. */
  firstByteMs?: number;
  /** Silence between two chunks of the streamed body. Default 60 s, env `GOAT_STREAM_IDLE_TIMEOUT_MS`. */
  idleMs?: number;
}

/** The limits in force for a transport, every field set. */
export type ResolvedTimeouts = Required<ProviderTimeouts>;

/** The defaults: a stalled call is noticed within a minute. */
const DEFAULT_TIMEOUTS: Readonly<ResolvedTimeouts> = Object.freeze({
  connectMs: 30_000,
  firstByteMs: 60_000,
  idleMs: 60_000,
});

/** The environment variable of each limit. */
export const TIMEOUT_ENV: Readonly<Record<keyof ProviderTimeouts, string>> = Object.freeze({
  connectMs: "GOAT_CONNECT_TIMEOUT_MS",
  firstByteMs: "GOAT_FIRST_BYTE_TIMEOUT_MS",
  idleMs: "GOAT_STREAM_IDLE_TIMEOUT_MS",
});

/**
 * The limits to use: each from `options`, else its environment variable, else the default. A value
 * that is not a number ≥ 0 is refused with a message naming where it came from.
 */
export function resolveTimeouts(
  options: ProviderTimeouts | undefined,
  env: Record<string, string | undefined>,
): ResolvedTimeouts {
  const out = { ...DEFAULT_TIMEOUTS };
  for (const key of Object.keys(DEFAULT_TIMEOUTS) as Array<keyof ProviderTimeouts>) {
    const given = options?.[key];
    if (given !== undefined) {
      out[key] = checked(given, `timeouts.${key}`);
      continue;
    }
    const raw = env[TIMEOUT_ENV[key]];
    if (raw !== undefined && raw.trim() !== "") out[key] = checked(Number(raw), TIMEOUT_ENV[key], raw);
  }
  return out;
}

function checked(value: unknown, where: string, raw: unknown = value): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new InvalidOptionError(
      "providerTimeouts",
      `${where} must be a number of milliseconds ≥ 0 (0 turns the limit off); got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}

/** "60 s" or "250 ms", for messages. */
export function describeMs(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
