/**
 * Settings files, read by the CLI and by `query()` (its `settingSources` and `settings` options), in
 * Claude Code's three levels, each with Claude's file and then Goat's: user
 * (`$CLAUDE_CONFIG_DIR/settings.json` or `~/.claude/settings.json`, then `$GOAT_HOME/settings.json`,
 * default `~/.goat`), project (`<cwd>/.claude/settings.json`, then `<cwd>/.goat/settings.json`), local
 * (`<cwd>/.claude/settings.local.json`, then `<cwd>/.goat/settings.local.json`), then `--settings
 * FILE` (or the `settings` option), merged in that order: later files win for single values (so
 * within a level Goat's file wins, being written for Goat), lists concatenate (so a deny rule from
 * any file applies).
 * A Goat file that exists but is not a JSON object is an error naming the file: a silently ignored
 * setting (a deny rule, a hook) is worse than not starting. A Claude file is read leniently
 * (`claude-files.ts`): what Goat cannot use of it is a warning, and the rest applies.
 */
import { homedir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { SettingsError } from "../errors.js";
import { parseHookSettings } from "../hooks/settings.js";
import type { HookEvent, SettingsHooks } from "../hooks/types.js";
import type { ModelPriceInput } from "../llm/cost.js";
import { mergeSandboxSettings, resolveSandboxSettings, type SandboxSettings } from "../sandbox/settings.js";
import { claudeConfigDir, isClaudeSettingsFile, usableClaudeSettings } from "./claude-files.js";
import {
  readSettingsFile,
  type SettingsFamily,
  type SettingsFileRead,
  type SettingsScope,
} from "./source-files.js";
import { restrictUntrustedSettings } from "./untrusted-project.js";

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
  /** The default effort level (`/effort` in Claude Code; `updateSettings` writes it to the user file). */
  effortLevel?: "low" | "medium" | "high" | "xhigh";
  permissions: PermissionSettings;
  /** Settings-file hooks in Claude Code's shape, per event, concatenated in file order. */
  hooks: SettingsHooks;
  env: Record<string, string>;
  /** Prices of models the catalog does not know, USD per million tokens (checked by `query()`). */
  modelPricing: Record<string, ModelPriceInput>;
  /** The `sandbox` values of the files merged (Claude Code's shape), when any file has one. */
  sandbox?: SandboxSettings;
  /** Claude Code's `verbose`: the interactive `goat` shows thinking in full from the start. */
  verbose?: boolean;
  /** Each file's raw `mcpServers` value, in file order (parsed later, and only when present). */
  mcpServers: Array<{ file: string; value: Record<string, unknown> }>;
  /** Files that were read, in order. */
  files: string[];
  /** What could not be used of Claude Code's files, one line each naming the file (they still load). */
  warnings: string[];
}

/** The effort levels a settings file may hold (Claude Code's; `max` is for one session only). */
export const EFFORT_LEVELS: readonly string[] = ["low", "medium", "high", "xhigh"];

/** A settings file that cannot be used (defined with the other shared errors in `src/errors.ts`). */
export { SettingsError };

/**
 * `--settings` given as JSON text rather than a file path (it starts with `{`), as the Agent SDKs pass
 * it; undefined for a path. Invalid JSON or a non-object is an error.
 */
export function inlineSettings(value: string | undefined): Record<string, unknown> | undefined {
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
  return json as Record<string, unknown>;
}

/** Goat's home folder: `$GOAT_HOME`, else `~/.goat`. */
export function goatHomeDir(env: Record<string, string | undefined>): string {
  return env.GOAT_HOME && env.GOAT_HOME.length > 0 ? env.GOAT_HOME : join(homedir(), ".goat");
}

/**
 * The settings files to read for `cwd`, lowest precedence first: per level (user, project, local)
 * Claude Code's file then Goat's; `extra` (the `--settings` file) last.
 */
export function settingsFiles(
  cwd: string,
  env: Record<string, string | undefined>,
  extra?: string,
  sources: readonly string[] = ["user", "project", "local"],
): string[] {
  const files: string[] = [];
  if (sources.includes("user")) {
    files.push(join(claudeConfigDir(env), "settings.json"), join(goatHomeDir(env), "settings.json"));
  }
  if (sources.includes("project")) {
    files.push(join(cwd, ".claude", "settings.json"), join(cwd, ".goat", "settings.json"));
  }
  if (sources.includes("local")) {
    files.push(join(cwd, ".claude", "settings.local.json"), join(cwd, ".goat", "settings.local.json"));
  }
  // The --settings path is relative to where the user typed it, not to --cwd.
  if (extra !== undefined) files.push(resolve(extra));
  return files;
}

/**
 * The settings files of `settingsFiles()`, each read once (a path listed twice, as when the folder
 * is the home folder, is read once), with its family and level: lowest precedence first.
 */
export function readSettingsFiles(
  cwd: string,
  env: Record<string, string | undefined>,
  sources: readonly string[] = ["user", "project", "local"],
): SettingsFileRead[] {
  const levels: Array<[SettingsScope, string[]]> = [
    ["user", [join(claudeConfigDir(env), "settings.json"), join(goatHomeDir(env), "settings.json")]],
    ["project", [join(cwd, ".claude", "settings.json"), join(cwd, ".goat", "settings.json")]],
    ["local", [join(cwd, ".claude", "settings.local.json"), join(cwd, ".goat", "settings.local.json")]],
  ];
  const seen = new Map<string, SettingsFileRead>();
  const reads: SettingsFileRead[] = [];
  for (const [scope, files] of levels) {
    if (!sources.includes(scope)) continue;
    for (const file of files) {
      const earlier = seen.get(file);
      const read = earlier ? { ...earlier, scope } : readSettingsFile(file, familyOf(file, env), scope);
      seen.set(file, read);
      reads.push(read);
    }
  }
  return reads;
}

/**
 * The `--settings` file (or the `settings` option's path), read as the last level: it must exist,
 * and what cannot be used of it is an error, whichever program's file it is.
 */
export function readFlagSettingsFile(
  file: string,
  env: Record<string, string | undefined>,
): SettingsFileRead {
  return readSettingsFile(file, familyOf(file, env), "flag");
}

/**
 * Reads and merges the files, then `inline` (the `settings` option given as an object), which wins.
 * Missing files are skipped, except `required` ones (the `--settings` file or `settings` path).
 * `restricted` files belong to a folder the user has not trusted: only what they say to restrict the
 * session is read (`untrusted-project.ts`). `claudeFiles` are Claude Code's (by default, those of
 * `files` in a `.claude` folder or Claude's user folder), read leniently: what cannot be used of them
 * is a line in `warnings`, not an error (`claude-files.ts`).
 */
export function loadSettings(
  files: string[],
  required: ReadonlySet<string> = new Set(),
  inline?: unknown,
  inlineOrigin = `the "settings" option`,
  restricted: ReadonlySet<string> = new Set(),
  // Found by path when not given (the user file by process.env's CLAUDE_CONFIG_DIR).
  claudeFiles: ReadonlySet<string> = new Set(files.filter((f) => isClaudeSettingsFile(f, process.env))),
): CliSettings {
  const reads = files.map((file) =>
    readSettingsFile(
      file,
      claudeFiles.has(file) ? "claude" : "goat",
      required.has(file) ? "flag" : scopeByName(file),
    ),
  );
  return mergeSettings(reads, { inline, inlineOrigin, restricted });
}

/** What `mergeSettings` merges besides the files. */
export interface SettingsMergeOptions {
  /** The `settings` option given as an object (or `--settings` JSON): merged last, winning. */
  inline?: unknown;
  /** How `inline` is named in errors. */
  inlineOrigin?: string;
  /** Files of a folder the user has not trusted: only what restricts the session is kept. */
  restricted?: ReadonlySet<string>;
}

/**
 * Merges settings files already read (`readSettingsFiles`, the project description's), in order,
 * then `inline`. A Goat file, or a `flag` one, that cannot be used is a `SettingsError` naming it;
 * what cannot be used of a Claude Code file is a line in `warnings`, and the rest applies.
 */
export function mergeSettings(
  reads: readonly SettingsFileRead[],
  options: SettingsMergeOptions = {},
): CliSettings {
  const { inline, inlineOrigin = `the "settings" option`, restricted = new Set<string>() } = options;
  const merged = emptySettings();
  for (const read of reads) {
    const { file } = read;
    const lenient = read.family === "claude" && read.scope !== "flag";
    const object = lenient ? claudeObject(read, merged.warnings) : goatObject(read);
    if (object === undefined) continue;
    const usable = restricted.has(file) ? restrictUntrustedSettings(object).kept : object;
    if (lenient) mergeLeniently(merged, usable, file);
    else mergeInto(merged, usable, `settings file ${file}`, file);
    merged.files.push(file);
  }
  if (inline !== undefined) {
    if (inline === null || typeof inline !== "object" || Array.isArray(inline)) {
      throw new SettingsError(`${inlineOrigin} must be an object or the path of a settings file`);
    }
    mergeInto(merged, inline as Record<string, unknown>, inlineOrigin, inlineOrigin);
  }
  return merged;
}

/** The level a listed settings file has, by its name (where only paths are given). */
function scopeByName(file: string): SettingsScope {
  if (basename(file) === "settings.local.json") return "local";
  const folder = basename(dirname(file));
  return folder === ".claude" || folder === ".goat" ? "project" : "user";
}

function familyOf(file: string, env: Record<string, string | undefined>): SettingsFamily {
  return isClaudeSettingsFile(file, env) ? "claude" : "goat";
}

function emptySettings(): CliSettings {
  return {
    permissions: { allow: [], deny: [], ask: [], additionalDirectories: [] },
    hooks: {},
    env: {},
    modelPricing: {},
    mcpServers: [],
    files: [],
    warnings: [],
  };
}

/** A Goat (or required) settings file's object; undefined when it is missing. Throws otherwise. */
function goatObject(read: SettingsFileRead): Record<string, unknown> | undefined {
  if (read.problem !== undefined) throw new SettingsError(read.problem);
  return read.object;
}

/** A Claude Code settings file's usable object; undefined (with a warning unless missing) otherwise. */
function claudeObject(read: SettingsFileRead, warnings: string[]): Record<string, unknown> | undefined {
  if (read.problem !== undefined) {
    warnings.push(`${read.problem}; the file was ignored`);
    return undefined;
  }
  return read.object && usableClaudeSettings(read.object, read.file, (message) => warnings.push(message));
}

/**
 * Merges a Claude Code file one key at a time: a key Goat rejects is a warning and left out whole
 * (checked on a scratch copy first, so a bad `deny` list never leaves its file's `allow` rules in).
 */
function mergeLeniently(into: CliSettings, json: Record<string, unknown>, file: string): void {
  for (const [key, value] of Object.entries(json)) {
    try {
      mergeInto(emptySettings(), { [key]: value }, `settings file ${file}`, file);
    } catch (error) {
      into.warnings.push(`${(error as Error).message}; "${key}" was ignored`);
      continue;
    }
    mergeInto(into, { [key]: value }, `settings file ${file}`, file);
  }
}

function mergeInto(into: CliSettings, json: Record<string, unknown>, where: string, file: string): void {
  if (json.model !== undefined) {
    if (typeof json.model !== "string" || json.model === "") {
      throw new SettingsError(`"model" in ${where} must be a non-empty string`);
    }
    into.model = json.model;
  }
  if (json.verbose !== undefined) {
    if (typeof json.verbose !== "boolean") {
      throw new SettingsError(`"verbose" in ${where} must be true or false`);
    }
    into.verbose = json.verbose;
  }
  if (json.effortLevel !== undefined) {
    if (typeof json.effortLevel !== "string" || !EFFORT_LEVELS.includes(json.effortLevel)) {
      throw new SettingsError(`"effortLevel" in ${where} must be one of ${EFFORT_LEVELS.join(", ")}`);
    }
    into.effortLevel = json.effortLevel as CliSettings["effortLevel"];
  }
  // Goat has one output style; a file naming another is an error rather than ignored.
  if (json.outputStyle !== undefined && json.outputStyle !== "default") {
    throw new SettingsError(
      `"outputStyle" in ${where} must be "default" (Goat has no other output style), got ${JSON.stringify(json.outputStyle)}`,
    );
  }
  if (json.permissions !== undefined) {
    const p = objectAt(json.permissions, "permissions", where);
    for (const key of ["allow", "deny", "ask", "additionalDirectories"] as const) {
      if (p[key] !== undefined)
        into.permissions[key].push(...stringList(p[key], `permissions.${key}`, where));
    }
    if (p.defaultMode !== undefined) {
      if (typeof p.defaultMode !== "string") {
        throw new SettingsError(`"permissions.defaultMode" in ${where} must be a string`);
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
    try {
      resolveSandboxSettings(json.sandbox, `"sandbox" in ${where}`);
    } catch (error) {
      throw new SettingsError((error as Error).message);
    }
    into.sandbox = mergeSandboxSettings([into.sandbox ?? {}, json.sandbox as SandboxSettings]);
  }
  if (json.mcpServers !== undefined) {
    into.mcpServers.push({ file, value: objectAt(json.mcpServers, "mcpServers", where) });
  }
  if (json.modelPricing !== undefined) {
    for (const [model, price] of Object.entries(objectAt(json.modelPricing, "modelPricing", where))) {
      into.modelPricing[model] = objectAt(
        price,
        `modelPricing.${model}`,
        where,
      ) as unknown as ModelPriceInput;
    }
  }
  if (json.env !== undefined) {
    for (const [name, value] of Object.entries(objectAt(json.env, "env", where))) {
      if (typeof value !== "string") {
        throw new SettingsError(`"env.${name}" in ${where} must be a string`);
      }
      into.env[name] = value;
    }
  }
}

function objectAt(value: unknown, key: string, where: string): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new SettingsError(`"${key}" in ${where} must be an object`);
  }
  return value as Record<string, unknown>;
}

function stringList(value: unknown, key: string, where: string): string[] {
  if (!Array.isArray(value) || value.some((x) => typeof x !== "string")) {
    throw new SettingsError(`"${key}" in ${where} must be an array of strings`);
  }
  return value as string[];
}
