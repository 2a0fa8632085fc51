/**
 * Permissions: modes, allow/deny/ask rules in Claude Code's syntax, the directory scope of file tools,
 * and the `canUseTool` callback. The loop builds one engine per session and calls `decide` per call.
 */
export { type BashSplit, type SimpleCommand, splitBashCommand } from "./bash-split.js";
export { createPermissionEngine, type PermissionEngine, type PermissionEngineOptions } from "./engine.js";
export { PermissionRuleError } from "./errors.js";
export { isReadOnlyCommand } from "./read-only-commands.js";
export { formatRule, type PermissionRule, parseRuleValue } from "./rule-parse.js";
export type { RuleLists } from "./rule-set.js";
export * from "./types.js";
