/**
 * `settingSources` and `settings` in `query()`: the same settings files the CLI reads (user,
 * project, local, then the `settings` path or object, later winning), applied to the options with
 * the CLI's precedence. The default, as in the Claude Agent SDK, is to read none, so an embedder is
 * never surprised by a file on the machine it runs on. What an option says explicitly wins over a
 * file; lists (permission rules, directories, hooks) add up.
 */
import { resolve } from "node:path";
import { mergeSandboxSettings } from "../sandbox/settings.js";
import { type CliSettings, loadSettings, SettingsError, settingsFiles } from "../settings/files.js";
import type { QueryOptions } from "./options.js";

const MODES: readonly string[] = ["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"];

/**
 * The options with the chosen settings files applied; the same object when none are asked for.
 * Throws `SettingsError` naming the file for a file that cannot be used.
 */
export function withSettings(options: QueryOptions): QueryOptions {
  const sources = options.settingSources ?? [];
  if (sources.length === 0 && options.settings === undefined) return options;
  const cwd = options.cwd ?? process.cwd();
  const callerEnv = options.env ?? process.env;
  const path = typeof options.settings === "string" ? resolve(cwd, options.settings) : undefined;
  const files = settingsFiles(cwd, callerEnv, path, sources);
  const inline = typeof options.settings === "object" ? options.settings : undefined;
  const settings = loadSettings(files, new Set(path ? [path] : []), inline);
  return applySettings(options, settings, cwd, callerEnv);
}

function applySettings(
  options: QueryOptions,
  settings: CliSettings,
  cwd: string,
  callerEnv: Record<string, string | undefined>,
): QueryOptions {
  const out: QueryOptions = { ...options };
  // Settings `env` fills in the environment; what the caller set wins. process.env is never changed.
  const extra = Object.entries(settings.env).filter(([name]) => callerEnv[name] === undefined);
  if (extra.length > 0) out.env = { ...callerEnv, ...Object.fromEntries(extra) };
  const env = out.env ?? callerEnv;
  // The model option, then GOAT_MODEL, then the settings' model (the CLI's order).
  if (out.model === undefined && !env.GOAT_MODEL && settings.model) out.model = settings.model;
  if (out.effort === undefined && settings.effortLevel) out.effort = settings.effortLevel;

  const { permissions } = settings;
  if (out.permissionMode === undefined && permissions.defaultMode !== undefined) {
    if (!MODES.includes(permissions.defaultMode)) {
      throw new SettingsError(
        `permissions.defaultMode must be one of ${MODES.join(", ")} (got "${permissions.defaultMode}")`,
      );
    }
    out.permissionMode = permissions.defaultMode as QueryOptions["permissionMode"];
  }
  const rules = options.permissionRules ?? {};
  out.permissionRules = {
    allow: [...permissions.allow, ...(rules.allow ?? [])],
    deny: [...permissions.deny, ...(rules.deny ?? [])],
    ask: [...permissions.ask, ...(rules.ask ?? [])],
  };
  if (permissions.additionalDirectories.length > 0) {
    out.additionalDirectories = [
      ...permissions.additionalDirectories.map((d) => resolve(cwd, d)),
      ...(options.additionalDirectories ?? []),
    ];
  }
  out.hooks = mergeHooks(settings.hooks, options.hooks);
  if (settings.sandbox) {
    out.sandbox = options.sandbox
      ? mergeSandboxSettings([settings.sandbox, options.sandbox])
      : settings.sandbox;
  }
  return out;
}

/** Settings hooks first, then the options' own, per event. */
function mergeHooks(files: CliSettings["hooks"], own: QueryOptions["hooks"]): QueryOptions["hooks"] {
  const events = new Set([...Object.keys(files), ...Object.keys(own ?? {})]) as Set<keyof typeof files>;
  if (events.size === 0) return own;
  const merged: NonNullable<QueryOptions["hooks"]> = {};
  for (const event of events) {
    // One group may be given alone (`PreToolUse: { matcher, hooks }` or a bare callback): as a list.
    const mine = own?.[event];
    merged[event] = [
      ...(files[event] ?? []),
      ...(mine === undefined ? [] : Array.isArray(mine) ? mine : [mine]),
    ];
  }
  return merged;
}
