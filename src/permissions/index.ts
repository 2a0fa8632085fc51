/**
 * Permissions: modes, allow/deny/ask rules in Claude Code's syntax, the directory scope of file tools,
 * and the `canUseTool` callback. The loop builds one engine per session and calls `decide` per call.
 */
export {
  type BashSplit,
  type ShellRedirect,
  type ShellWord,
  type SimpleCommand,
  splitBashCommand,
} from "./bash-split.js";
export { isReadOnlyCommand } from "./command-effects.js";
export { createPermissionEngine, type PermissionEngine, type PermissionEngineOptions } from "./engine.js";
export { PermissionRuleError } from "./errors.js";
export { formatRule, type PermissionRule, parseRuleValue } from "./rule-parse.js";
export type { RuleLists } from "./rule-set.js";
export * from "./types.js";
