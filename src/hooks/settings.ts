/**
 * Loads command hooks from settings files (`~/.goat/settings.json`, `<project>/.goat/settings.json`),
 * whose `hooks` key has Claude Code's shape. A file that exists but is wrong is an error at start-up
 * naming the file and the spot, because a hook that silently never runs is worse than no start.
 */

import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { SettingsError } from "../errors.js";
import { compileMatcher } from "./matcher.js";
import {
  type CommandHookEntry,
  HOOK_EVENTS,
  type HookEvent,
  type SettingsHookMatcher,
  type SettingsHooks,
} from "./types.js";

/** The settings files that may hold hooks, user file first so the project's hooks come last. */
export function hookSettingsFiles(projectDir: string, homeDir: string = homedir()): string[] {
  return [join(homeDir, ".goat", "settings.json"), join(projectDir, ".goat", "settings.json")];
}

/**
 * Reads the `hooks` key of each file and merges them (matchers of one event concatenated in file
 * order). A missing file is skipped; unreadable or invalid JSON, or a malformed `hooks` value,
 * throws a `SettingsError` whose message names the file.
 */
export function loadHookSettings(files: string[]): SettingsHooks {
  const merged: SettingsHooks = {};
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw new SettingsError(`Cannot read settings file ${file}: ${(err as Error).message}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new SettingsError(`Invalid JSON in settings file ${file}: ${(err as Error).message}`);
    }
    if (json === null || typeof json !== "object" || Array.isArray(json)) {
      throw new SettingsError(`Settings file ${file} must hold a JSON object`);
    }
    const hooks = parseHookSettings((json as Record<string, unknown>).hooks, file);
    for (const event of Object.keys(hooks) as HookEvent[]) {
      merged[event] = [...(merged[event] ?? []), ...(hooks[event] ?? [])];
    }
  }
  return merged;
}

/**
 * Validates a settings `hooks` value (already parsed JSON) from `source`. Only `type: "command"`
 * handlers are supported; other handler types and unknown events are errors naming where they are.
 */
export function parseHookSettings(value: unknown, source: string): SettingsHooks {
  if (value === undefined) return {};
  const fail = (where: string, what: string): never => {
    throw new SettingsError(`Invalid hooks in ${source} at ${where}: ${what}`);
  };
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    fail("hooks", "expected an object keyed by hook event");
  }
  const result: SettingsHooks = {};
  for (const [event, groups] of Object.entries(value as Record<string, unknown>)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      fail(`hooks.${event}`, `unknown hook event; supported events: ${HOOK_EVENTS.join(", ")}`);
    }
    if (!Array.isArray(groups)) fail(`hooks.${event}`, "expected an array of {matcher, hooks}");
    result[event as HookEvent] = (groups as unknown[]).map((group, i) =>
      parseGroup(group, `hooks.${event}[${i}]`, source, fail),
    );
  }
  return result;
}

function parseGroup(
  group: unknown,
  where: string,
  source: string,
  fail: (where: string, what: string) => never,
): SettingsHookMatcher {
  if (group === null || typeof group !== "object" || Array.isArray(group)) {
    return fail(where, "expected an object {matcher?, hooks: [...]}");
  }
  const { matcher, hooks } = group as Record<string, unknown>;
  if (matcher !== undefined && typeof matcher !== "string") fail(`${where}.matcher`, "expected a string");
  try {
    compileMatcher(matcher as string | undefined);
  } catch (err) {
    fail(`${where}.matcher`, (err as Error).message);
  }
  if (!Array.isArray(hooks)) return fail(`${where}.hooks`, "expected an array of handlers");
  const entries = hooks.map((h, j): CommandHookEntry => {
    const at = `${where}.hooks[${j}]`;
    if (h === null || typeof h !== "object") return fail(at, "expected an object");
    const { type, command, timeout } = h as Record<string, unknown>;
    if (type !== "command") {
      return fail(`${at}.type`, `handler type ${JSON.stringify(type)} is not supported; use "command"`);
    }
    if (typeof command !== "string" || command.trim() === "")
      return fail(`${at}.command`, "expected a command");
    if (timeout !== undefined && (typeof timeout !== "number" || !(timeout > 0))) {
      return fail(`${at}.timeout`, "expected a positive number of seconds");
    }
    return { type: "command", command, timeout: timeout as number | undefined, source };
  });
  return matcher === undefined ? { hooks: entries } : { matcher: matcher as string, hooks: entries };
}
