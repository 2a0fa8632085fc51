/**
 * `GoatError`: the one base class of every error Goat throws for a caller to catch, with a stable
 * `code` to switch on. `instanceof GoatError` also recognises errors made by another copy of the
 * package (two versions installed side by side, or a bundled copy), through a marker symbol shared
 * by every copy, the way `isProviderError` already did for provider errors.
 *
 * The errors that several layers throw live here too (the bottom layer, so any layer may throw them):
 * `InvalidOptionError`, `SettingsError`, `SessionNotFoundError`, `CompactionError`. The others live
 * with what they are about (`ProviderError` in `llm/`, `PermissionRuleError` in `permissions/`, …); every
 * entry point re-exports the one class object, so `instanceof` holds whichever path a program imported.
 *
 * @example
 * try { await agent.prompt("…"); } catch (error) {
 *   if (error instanceof GoatError && error.code === "invalid_option") showUsage(error.message);
 * }
 */

const MARKER = Symbol.for("goat.GoatError");

/** Base class of the errors Goat throws; `code` names the kind of failure. */
export class GoatError extends Error {
  /** A stable, machine-readable name for the failure (`invalid_option`, `provider_rate_limit`, …). */
  readonly code: string;
  /** Marks the error as Goat's, for `isGoatError` across copies of the package. */
  readonly [MARKER] = true;

  constructor(message: string, options: { code?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "GoatError";
    this.code = options.code ?? "goat_error";
  }

  /** `x instanceof GoatError` holds for any copy's errors; subclasses keep the usual prototype check. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // `this` is the class on the right of `instanceof`: GoatError itself, or a subclass.
    // biome-ignore lint/complexity/noThisInStatic: which class is asked is the point
    if (this === GoatError) return isGoatError(value);
    // biome-ignore lint/complexity/noThisInStatic: the subclass asked keeps the ordinary check
    return Function.prototype[Symbol.hasInstance].call(this, value);
  }
}

/** True for an error made by any copy of Goat. */
export function isGoatError(value: unknown): value is GoatError {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
}

/**
 * An operation stopped because it was aborted (code `aborted`), by the Claude Agent SDK's name, so
 * code written for it catches Goat's. A run that is interrupted or aborted is not thrown: it ends
 * with its `result` message; an `Agent` prompt cancelled by its signal rejects with the signal's reason,
 * and with an `AbortError` when the signal has none.
 */
export class AbortError extends GoatError {
  constructor(message = "The operation was aborted.", options: { cause?: unknown } = {}) {
    super(message, { code: "aborted", cause: options.cause });
    this.name = "AbortError";
  }
}

/**
 * An option that cannot be used (code `invalid_option`): a wrong type or range, an unknown name, a
 * model no provider serves, a malformed `hooks` entry. `option` names it (`maxTurns`, `hooks`, …).
 */
export class InvalidOptionError extends GoatError {
  override name = "InvalidOptionError";
  /** The option at fault. */
  readonly option: string;
  constructor(option: string, message: string, options: { cause?: unknown } = {}) {
    super(message, { code: "invalid_option", cause: options.cause });
    this.option = option;
  }
}

/** A settings file (or `settings` object) that cannot be used (code `invalid_settings`); the message names it. */
export class SettingsError extends GoatError {
  override name = "SettingsError";
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { code: "invalid_settings", cause: options.cause });
  }
}

/** A session id the session store does not hold (code `session_not_found`): `resume`, fork, read. */
export class SessionNotFoundError extends GoatError {
  override name = "SessionNotFoundError";
  /** The id that was asked for. */
  readonly sessionId: string;
  constructor(sessionId: string, message = `No session ${sessionId} in the session store.`) {
    super(message, { code: "session_not_found" });
    this.sessionId = sessionId;
  }
}

/**
 * A compaction that did not happen: `code` is `compaction_blocked` when a PreCompact hook refused it,
 * `compaction_failed` when the summary could not be made (the history is left as it was).
 */
export class CompactionError extends GoatError {
  override name = "CompactionError";
  constructor(
    message: string,
    options: { code?: "compaction_failed" | "compaction_blocked"; cause?: unknown } = {},
  ) {
    super(message, { code: options.code ?? "compaction_failed", cause: options.cause });
  }
}
