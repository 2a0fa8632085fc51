/**
 * The error thrown when a permission rule cannot be parsed. It names the rule and says what is wrong,
 * so a typo in `allowedTools` or a settings file fails at start-up instead of silently never matching.
 */

import { GoatError } from "../errors.js";

/** A permission rule that cannot be parsed; `rule` is the text as written. */
export class PermissionRuleError extends GoatError {
  readonly rule: string;
  constructor(rule: string, problem: string) {
    super(`Invalid permission rule ${JSON.stringify(rule)}: ${problem}`, { code: "invalid_permission_rule" });
    this.name = "PermissionRuleError";
    this.rule = rule;
  }
}
