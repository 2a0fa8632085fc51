/**
 * Settings files of the CLI: `$GOAT_HOME/settings.json` (default `~/.goat`), `<cwd>/.goat/settings.json`
 * and `--settings FILE`, merged in that order (later files win for single values, lists concatenate).
 * A file that exists but is not a JSON object is an error naming the file: a silently ignored setting
 * (a deny rule, a hook) is worse than not starting.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { GoatError } from "../errors.js";
import { parseHookSettings } from "../hooks/settings.js";
import type { HookEvent, SettingsHooks } from "../hooks/types.js";

/** The `permissions` key of a settings file (Claude Code's shape). */
export interface PermissionSettings {
  allow: string[];
  deny: string[];
  ask: string[];
  defaultMode?: string;
  additionalDirectories: string[];
}

/** The merged settings. */
export interface CliSettings {
  model?: string;
  permissions: PermissionSettings;
  /** Settings-file hooks in Claude Code's shape, per event, concatenated in file order. */
  hooks: SettingsHooks;
  env: Record<string, string>;
  /** Each file's raw `mcpServers` value, in file order (parsed later, and only when present). */
  mcpServers: Array<{ file: string; value: Record<string, unknown> }>;
  /** The `sandbox` key (Claude's sandbox settings, which the TypeScript SDK merges into `--settings`). */
  sandbox?: Record<string, unknown>;
  /** Files that were read, in order. */
  files: string[];
}

/** Settings given as JSON text rather than a file (`--settings '{…}'`, as the Agent SDKs pass them). */
export interface InlineSettings {
  /** Names the source in messages. */
  origin: string;
  json: Record<string, unknown>;
}

/** A settings file that cannot be used; the message names the file. */
export class SettingsError extends GoatError {
  override name = "SettingsError";
  override readonly code: string = "invalid_settings";
}

/** Goat's home folder: `$GOAT_HOME`, else `~/.goat`. */
export function goatHomeDir(env: Record<string, string | undefined>): string {
  return env.GOAT_HOME && env.GOAT_HOME.length > 0 ? env.GOAT_HOME : join(homedir(), ".goat");
}

/** The settings files to read for `cwd`, user first; `extra` (the `--settings` file) last. */
export function settingsFiles(
  cwd: string,
  env: Record<string, string | undefined>,
  extra?: string,
  sources: readonly string[] = ["user", "project", "local"],
): string[] {
  const files: string[] = [];
  if (sources.includes("user")) files.push(join(goatHomeDir(env), "settings.json"));
  if (sources.includes("project")) files.push(join(cwd, ".goat", "settings.json"));
  if (sources.includes("local")) files.push(join(cwd, ".goat", "settings.local.json"));
  // The --settings path is relative to where the user typed it, not to --cwd.
  if (extra !== undefined) files.push(resolve(extra));
  return files;
}

/**
 * Reads and merges the files, then `inline` (highest precedence). Missing files are skipped, except
 * `required` ones (the `--settings` file).
 */
export function loadSettings(
  files: string[],
  required: ReadonlySet<string> = new Set(),
  inline?: InlineSettings,
): CliSettings {
  const merged: CliSettings = {
    permissions: { allow: [], deny: [], ask: [], additionalDirectories: [] },
    hooks: {},
    env: {},
    mcpServers: [],
    files: [],
  };
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" && !required.has(file)) continue;
      throw new SettingsError(
        code === "ENOENT"
          ? `settings file ${file} does not exist`
          : `cannot read settings file ${file}: ${(error as Error).message}`,
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new SettingsError(`invalid JSON in settings file ${file}: ${(error as Error).message}`);
    }
    if (json === null || typeof json !== "object" || Array.isArray(json)) {
      throw new SettingsError(`settings file ${file} must hold a JSON object`);
    }
    mergeInto(merged, json as Record<string, unknown>, file);
    merged.files.push(file);
  }
  if (inline) mergeInto(merged, inline.json, inline.origin);
  return merged;
}

/** Parses `--settings` text that is inline JSON (it starts with `{`); undefined for a file path. */
export function inlineSettings(value: string | undefined): InlineSettings | undefined {
  if (value === undefined || !value.trimStart().startsWith("{")) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch (error) {
    throw new SettingsError(`invalid JSON in --settings: ${(error as Error).message}`);
  }
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    throw new SettingsError("--settings JSON must be an object");
  }
  return { origin: "--settings JSON", json: json as Record<string, unknown> };
}

function mergeInto(into: CliSettings, json: Record<string, unknown>, file: string): void {
  if (json.model !== undefined) {
    if (typeof json.model !== "string" || json.model === "") {
      throw new SettingsError(`"model" in settings file ${file} must be a non-empty string`);
    }
    into.model = json.model;
  }
  if (json.permissions !== undefined) {
    const p = objectAt(json.permissions, "permissions", file);
    for (const key of ["allow", "deny", "ask", "additionalDirectories"] as const) {
      if (p[key] !== undefined) into.permissions[key].push(...stringList(p[key], `permissions.${key}`, file));
    }
    if (p.defaultMode !== undefined) {
      if (typeof p.defaultMode !== "string") {
        throw new SettingsError(`"permissions.defaultMode" in settings file ${file} must be a string`);
      }
      into.permissions.defaultMode = p.defaultMode;
    }
  }
  if (json.hooks !== undefined) {
    let hooks: SettingsHooks;
    try {
      hooks = parseHookSettings(json.hooks, file);
    } catch (error) {
      throw new SettingsError((error as Error).message);
    }
    for (const event of Object.keys(hooks) as HookEvent[]) {
      into.hooks[event] = [...(into.hooks[event] ?? []), ...(hooks[event] ?? [])];
    }
  }
  if (json.sandbox !== undefined) {
    into.sandbox = { ...into.sandbox, ...objectAt(json.sandbox, "sandbox", file) };
  }
  if (json.mcpServers !== undefined) {
    into.mcpServers.push({ file, value: objectAt(json.mcpServers, "mcpServers", file) });
  }
  if (json.env !== undefined) {
    for (const [name, value] of Object.entries(objectAt(json.env, "env", file))) {
      if (typeof value !== "string") {
        throw new SettingsError(`"env.${name}" in settings file ${file} must be a string`);
      }
      into.env[name] = value;
    }
  }
}

function objectAt(value: unknown, key: string, file: string): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new SettingsError(`"${key}" in settings file ${file} must be an object`);
  }
  return value as Record<string, unknown>;
}

function stringList(value: unknown, key: string, file: string): string[] {
  if (!Array.isArray(value) || value.some((x) => typeof x !== "string")) {
    throw new SettingsError(`"${key}" in settings file ${file} must be an array of strings`);
  }
  return value as string[];
}
