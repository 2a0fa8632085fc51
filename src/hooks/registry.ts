/**
 * Turns the two registration shapes (in-process callbacks, settings-file commands) into one flat,
 * pre-compiled list per event, so each firing only tests matchers and never re-parses them.
 */
import { InvalidOptionError } from "../errors.js";
import { type CompiledMatcher, compileMatcher } from "./matcher.js";
import {
  HOOK_EVENTS,
  type HookCallback,
  type HookEvent,
  type HooksConfig,
  type SettingsHooks,
} from "./types.js";

/** Default time a hook may run: 60 s, as in Claude Code. */
export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;

/** One registered hook, ready to run. */
export interface RegisteredHook {
  hookId: string;
  hookName: string;
  label: string;
  matches: CompiledMatcher;
  timeoutMs: number;
  onFailure: "continue" | "block";
  run: { kind: "callback"; callback: HookCallback } | { kind: "command"; command: string };
}

/** All hooks by event; events without hooks are absent. */
export type HookRegistry = Map<HookEvent, RegisteredHook[]>;

/** The registrations a registry is built from. */
export interface HookSources {
  hooks?: HooksConfig;
  settingsHooks?: SettingsHooks;
}

/**
 * Builds the registry: callbacks first, then settings commands, each in the order given. Throws on
 * an invalid matcher regex or a non-function hook, naming the event and matcher.
 */
export function buildHookRegistry(sources: HookSources): HookRegistry {
  const registry: HookRegistry = new Map();
  let n = 0;
  const add = (event: HookEvent, hook: Omit<RegisteredHook, "hookId">) => {
    const list = registry.get(event) ?? [];
    list.push({ hookId: `hook_${n++}`, ...hook });
    registry.set(event, list);
  };
  for (const [event, groups] of entries(sources.hooks)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      throw new InvalidOptionError(
        "hooks",
        `Unknown hook event "${event}"; supported events: ${HOOK_EVENTS.join(", ")}`,
      );
    }
    for (const group of groups ?? []) {
      const matches = compileMatcher(group.matcher);
      const hookName = `${event}:${group.matcher || "*"}`;
      for (const callback of group.hooks ?? []) {
        if (typeof callback !== "function") {
          throw new InvalidOptionError(
            "hooks",
            `Hook for ${hookName} is not a function (got ${typeof callback})`,
          );
        }
        add(event, {
          hookName,
          label: `callback ${callback.name || "anonymous"} (${hookName})`,
          matches,
          timeoutMs: seconds(group.timeout) * 1000,
          onFailure: group.onFailure ?? "continue",
          run: { kind: "callback", callback },
        });
      }
    }
  }
  for (const [event, groups] of entries(sources.settingsHooks)) {
    for (const group of groups ?? []) {
      const matches = compileMatcher(group.matcher);
      const hookName = `${event}:${group.matcher || "*"}`;
      for (const entry of group.hooks) {
        add(event, {
          hookName,
          label: entry.command,
          matches,
          timeoutMs: seconds(entry.timeout) * 1000,
          onFailure: "continue",
          run: { kind: "command", command: entry.command },
        });
      }
    }
  }
  return registry;
}

function seconds(timeout: number | undefined): number {
  return typeof timeout === "number" && timeout > 0 ? timeout : DEFAULT_HOOK_TIMEOUT_SECONDS;
}

function entries<T>(record: Partial<Record<HookEvent, T>> | undefined): Array<[HookEvent, T]> {
  return Object.entries(record ?? {}) as Array<[HookEvent, T]>;
}
