/**
 * The hooks module's public surface: types, the session runner, the one-shot runner, and settings
 * loading. The loop imports from here only.
 */
export {
  type AggregatedHookResult,
  aggregateHookOutcomes,
  emptyHookResult,
  type HookError,
  type HookOutcome,
} from "./aggregate.js";
export { compileMatcher, matcherTarget } from "./matcher.js";
export { parseHookOutput } from "./output.js";
export {
  buildHookRegistry,
  DEFAULT_HOOK_TIMEOUT_SECONDS,
  type HookRegistry,
  type HookSources,
} from "./registry.js";
export { type RunHooksOptions, runHooks } from "./run-hooks.js";
export { createHookRunner, type HookRunner, type HookRunnerConfig } from "./runner.js";
export { hookSettingsFiles, loadHookSettings, parseHookSettings } from "./settings.js";
export * from "./types.js";
