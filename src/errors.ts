/**
 * `GoatError`: the one base class of every error Goat throws for a caller to catch, with a stable
 * `code` to switch on. `instanceof GoatError` also recognises errors made by another copy of the
 * package (two versions installed side by side, or a bundled copy), through a marker symbol shared
 * by every copy, the way `isProviderError` already did for provider errors.
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
