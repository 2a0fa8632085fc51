/**
 * The per-session hook runner the loop holds: registrations compiled once, base input fields filled
 * on every firing, and a cheap `has()` so a session without hooks pays nothing on its hot path.
 */
import { type AggregatedHookResult, emptyHookResult } from "./aggregate.js";
import { matcherApplies, matcherField } from "./matcher.js";
import { buildHookRegistry } from "./registry.js";
import { type HookObserver, runHooks } from "./run-hooks.js";
import type { HookEvent, HookEventFields, HookInputMap, HooksConfig, SettingsHooks } from "./types.js";

/** What a session's hook runner is built from. */
export interface HookRunnerConfig {
  /** In-process callbacks (the SDK's `options.hooks`). */
  hooks?: HooksConfig;
  /** Command hooks from settings files (`loadHookSettings`). */
  settingsHooks?: SettingsHooks;
  sessionId: string;
  cwd: string;
  /** `GOAT_PROJECT_DIR` for command hooks; defaults to `cwd`. */
  projectDir?: string;
  /** Path of the session transcript; "" when the session is not persisted. */
  transcriptPath?: string;
  /** Read at each firing, because the mode can change mid-run. */
  getPermissionMode: () => string;
  /** The environment of command hooks (the session's `env`), read at each firing; default `process.env`. */
  env?: Record<string, string | undefined>;
  /**
   * Managed settings' `allowManagedHooksOnly` (or `disableAllHooks`): no command hook from settings runs,
   * neither the files' nor the flag layer's; in-process callbacks (the host's own) still do.
   */
  managedHooksOnly?: boolean;
  /** Told as each hook starts and ends (the SDK's `includeHookEvents`). */
  observer?: HookObserver;
}

/** Fires hooks for one session. */
export interface HookRunner {
  /**
   * True when at least one hook is registered for `event` (and, when `matchValue` is given, one
   * whose matcher selects it, e.g. the tool name). Lets the loop skip building inputs.
   */
  has(event: HookEvent, matchValue?: string): boolean;
  /** Fires `event` with its own fields; base fields are filled in. Never throws. */
  run<E extends HookEvent>(
    event: E,
    fields: HookEventFields<E>,
    options: { signal: AbortSignal; toolUseID?: string },
  ): Promise<AggregatedHookResult>;
  /**
   * Replaces the command hooks of the flag settings layer (`applyFlagSettings`), which run after the
   * others; undefined removes them.
   */
  setFlagHooks(hooks: SettingsHooks | undefined): void;
}

/**
 * Creates a session's hook runner. Throws at once on an invalid matcher or unknown event, so a
 * misconfigured hook fails at start-up rather than silently never firing.
 */
export function createHookRunner(config: HookRunnerConfig): HookRunner {
  const build = (flagHooks: SettingsHooks | undefined) =>
    buildHookRegistry({
      hooks: config.hooks,
      settingsHooks: config.managedHooksOnly ? undefined : withFlagHooks(config.settingsHooks, flagHooks),
    });
  let registry = build(undefined);
  return {
    has(event, matchValue) {
      const hooks = registry.get(event);
      if (hooks === undefined || hooks.length === 0) return false;
      if (matchValue === undefined) return true;
      const target = matcherField(event) === undefined ? undefined : matchValue;
      return hooks.some((hook) => matcherApplies(hook.matches, target));
    },
    async run(event, fields, options) {
      if (!registry.has(event)) return emptyHookResult(event);
      const input = {
        session_id: config.sessionId,
        transcript_path: config.transcriptPath ?? "",
        cwd: config.cwd,
        permission_mode: config.getPermissionMode(),
        ...fields,
        hook_event_name: event,
      } as unknown as HookInputMap[typeof event];
      return runHooks(event, input, registry, {
        signal: options.signal,
        toolUseID: options.toolUseID,
        projectDir: config.projectDir ?? config.cwd,
        env: config.env,
        observer: config.observer,
      });
    },
    setFlagHooks(hooks) {
      registry = build(hooks);
    },
  };
}

/** The settings files' command hooks, then the flag layer's, per event. */
function withFlagHooks(
  files: SettingsHooks | undefined,
  flag: SettingsHooks | undefined,
): SettingsHooks | undefined {
  if (!flag) return files;
  const merged: SettingsHooks = { ...files };
  for (const [event, groups] of Object.entries(flag) as Array<[HookEvent, SettingsHooks[HookEvent]]>) {
    merged[event] = [...(merged[event] ?? []), ...(groups ?? [])];
  }
  return merged;
}
