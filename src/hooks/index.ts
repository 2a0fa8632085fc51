/**
 * `goat-agent/hooks`: hooks as the Claude Agent SDK defines them — the events and their inputs, the
 * callback contract and its output, command hooks from settings files — and the runner that fires
 * them, for programs that fire hooks around their own work. `query()` takes hooks through its `hooks`
 * option; the callback and input types are also exported from the root.
 */
export {
  type AggregatedHookResult,
  aggregateHookOutcomes,
  emptyHookResult,
  type HookError,
  type HookOutcome,
} from "./aggregate.js";
export { type CompiledMatcher, compileMatcher, matcherTarget } from "./matcher.js";
export { type ParsedHookOutput, parseHookOutput } from "./output.js";
export {
  buildHookRegistry,
  DEFAULT_HOOK_TIMEOUT_SECONDS,
  type HookRegistry,
  type HookSources,
  type RegisteredHook,
} from "./registry.js";
export { type HookObserver, type HookRun, type RunHooksOptions, runHooks } from "./run-hooks.js";
export { createHookRunner, type HookRunner, type HookRunnerConfig } from "./runner.js";
export { hookSettingsFiles, loadHookSettings, parseHookSettings } from "./settings.js";
export * from "./types.js";
