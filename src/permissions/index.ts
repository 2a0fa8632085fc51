/**
 * `goat-agent/permissions`: the permission engine `query()` asks before every tool call — modes,
 * allow/deny/ask rules in Claude Code's syntax (`Bash(npm test:*)`), the directory scope of file tools,
 * the Bash command analysis, and the `canUseTool` callback. Build an engine with
 * `createPermissionEngine` to decide calls outside a session, or to check rules before using them.
 */
export {
  type BashSplit,
  type ShellRedirect,
  type ShellWord,
  type SimpleCommand,
  splitBashCommand,
} from "./bash-split.js";
export { isReadOnlyCommand } from "./command-effects.js";
export {
  createPermissionEngine,
  type ManagedPermissions,
  type PermissionEngine,
  type PermissionEngineOptions,
  type PermissionLayer,
} from "./engine.js";
export { PermissionRuleError } from "./errors.js";
export type { PermissionRulesListing } from "./rule-listing.js";
export {
  type CommandPattern,
  formatRule,
  type PathPattern,
  type PermissionRule,
  parseRuleValue,
  type RuleSpecifier,
} from "./rule-parse.js";
export type { RuleLists } from "./rule-set.js";
export * from "./types.js";
export { LIBRARY_WORDING, type PermissionWording } from "./wording.js";
