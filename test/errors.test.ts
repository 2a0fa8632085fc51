/**
 * One base class for the errors a caller catches: `instanceof GoatError` and a stable `code` on provider
 * errors, permission-rule errors and the CLI's usage/settings errors, also for errors made by another copy
 * of the package (simulated by an object carrying the shared marker, as a second copy's class would).
 */
import { describe, expect, it } from "vitest";
import { UsageError } from "../src/cli/args.js";
import { SettingsError } from "../src/cli/settings.js";
import { GoatError, isGoatError, ProviderError, query } from "../src/index.js";
import { PermissionRuleError } from "../src/permissions/errors.js";

describe("GoatError", () => {
  it("is the base of the errors Goat throws, each with a code", () => {
    const errors = [
      new ProviderError({ kind: "rate_limit", provider: "anthropic", message: "slow down" }),
      new PermissionRuleError("Bash(", "unclosed parenthesis"),
      new UsageError("--max-turns needs a number"),
      new SettingsError("bad settings.json"),
    ];
    expect(errors.map((e) => [e instanceof GoatError, e instanceof Error, e.code])).toEqual([
      [true, true, "provider_rate_limit"],
      [true, true, "invalid_permission_rule"],
      [true, true, "usage"],
      [true, true, "invalid_settings"],
    ]);
    expect(new UsageError("x") instanceof ProviderError).toBe(false);
  });

  it("recognises an error from another copy of the package by its shared marker", () => {
    const foreign = Object.assign(new Error("from a second install"), {
      [Symbol.for("goat.GoatError")]: true,
      code: "provider_overloaded",
    });
    expect(foreign instanceof GoatError).toBe(true);
    expect(isGoatError(foreign)).toBe(true);
    expect(new Error("plain") instanceof GoatError).toBe(false);
    expect(isGoatError({ code: "x" })).toBe(false);
  });

  it("reaches a caller of query() as a GoatError when a permission rule is malformed", async () => {
    const failure = await (async () => {
      try {
        const run = query({
          prompt: "hi",
          options: { allowedTools: ["Bash(npm test"], persistSession: false },
        });
        for await (const _ of run) {
          // drain
        }
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(failure).toBeInstanceOf(GoatError);
    expect((failure as GoatError).code).toBe("invalid_permission_rule");
  });
});
