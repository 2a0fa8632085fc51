/**
 * Claude Code plugins on disk (a `--plugin-dir` folder, or the Agent SDK's `plugins: [{ type:
 * "local", path }]`): `.claude-plugin/plugin.json` (`name`, `version`, `description`, and paths that
 * add to the default folders), `commands/`, `agents/`, `skills/`, `hooks/hooks.json` and `.mcp.json`.
 * What a plugin defines is named as Claude Code names it, after the plugin: the command
 * `/<plugin>:<name>`, the agent and the skill `<plugin>:<name>`, and the MCP server
 * `plugin_<plugin>_<server>` (its tools `mcp__plugin_<plugin>_<server>__<tool>`). `${CLAUDE_PLUGIN_ROOT}`
 * in a hook's command or a server's command, arguments, environment or URL is the plugin's folder.
 *
 * Only local folders: the marketplaces Claude Code installs plugins from are not read. The user (or the
 * host) names each plugin, so its parts apply as the user's own do, without a trust question.
 *
 * Read leniently: a manifest, hook file or server file that cannot be used is one warning naming the
 * file (and a `pluginErrors` entry in Claude's shape), and the rest of the plugin still loads.
 */
import { readFileSync, statSync } from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import { parseHookSettings } from "../hooks/settings.js";
import type { HookEvent, SettingsHooks } from "../hooks/types.js";
import { agentFromFile, type FileAgentDefinition } from "./claude-agents.js";
import { readMarkdownFiles } from "./markdown-folders.js";
import { readSkillFolder, type SkillDefinition } from "./skill-files.js";
import { readPluginCommands, type SlashCommandDefinition } from "./slash-command-files.js";
import { jsonErrorText } from "./source-files.js";

/** A plugin to load, in the Claude Agent SDK's shape (`SdkPluginConfig`). */
export interface PluginConfig {
  /** Only `local` (a folder on this machine). */
  type: "local";
  /** The plugin's folder, absolute or relative to the session's directory. */
  path: string;
  /** Leave its `.mcp.json` and manifest `mcpServers` unread (the host runs those servers itself). */
  skipMcpDiscovery?: boolean;
}

/** A plugin as read: what `system/init.plugins` lists, and every part it defines, already named. */
export interface PluginDefinition {
  /** The manifest's `name` (else the folder's), which prefixes its parts' names. */
  name: string;
  /** The plugin's folder (absolute). */
  path: string;
  /** The manifest's `version`, as written. */
  version?: string;
  /** The manifest's `description`. */
  description?: string;
  /** Its slash commands, named `<plugin>:<name>`. */
  commands: Record<string, SlashCommandDefinition>;
  /** Its subagents, named `<plugin>:<name>`. */
  agents: Record<string, FileAgentDefinition>;
  /** Its skills, named `<plugin>:<name>`. */
  skills: Record<string, SkillDefinition>;
  /** Its command hooks (`hooks/hooks.json` and the manifest's), `${CLAUDE_PLUGIN_ROOT}` expanded. */
  hooks: SettingsHooks;
  /** MCP server configs by their session name, `${CLAUDE_PLUGIN_ROOT}` expanded, not yet validated. */
  mcpServers: Record<string, unknown>;
}

/** A problem loading a plugin, in the shape of Claude's `system/init.plugin_errors`. */
export interface PluginError {
  /** The plugin's name, or `inline[N]` for the N-th configured plugin that had no name yet. */
  plugin: string;
  /** `path-not-found`, `manifest-validation-error`, `hook-load-failed`, `mcp-config-invalid`. */
  type: string;
  message: string;
  path?: string;
}

/** What reading the configured plugins gave. */
export interface LoadedPlugins {
  /** The plugins that loaded, in the order given. */
  plugins: PluginDefinition[];
  /** What did not load (a plugin, or a part of one). */
  errors: PluginError[];
}

/** Letters, digits, `.`, `_`, `-`: a plugin's name prefixes command, agent, skill and tool names. */
const PLUGIN_NAME = /^[A-Za-z0-9][\w.-]*$/;

/**
 * Reads each configured plugin; a later plugin of an already loaded name is left out (one warning).
 * Never throws: each problem is a warning through `warn` and an entry of `errors`.
 */
export function readPlugins(
  configs: readonly PluginConfig[],
  cwd: string,
  warn: (message: string) => void,
): LoadedPlugins {
  const out: LoadedPlugins = { plugins: [], errors: [] };
  configs.forEach((config, index) => {
    const fail = (error: PluginError) => {
      out.errors.push(error);
      warn(`plugin ${error.path ?? error.plugin}: ${error.message}`);
    };
    const path = resolve(cwd, config.path);
    if (!isDirectory(path)) {
      fail({ plugin: `inline[${index}]`, type: "path-not-found", message: "no such folder", path });
      return;
    }
    const plugin = readPlugin(path, config.skipMcpDiscovery === true, index, fail);
    if (!plugin) return;
    if (out.plugins.some((p) => p.name === plugin.name)) {
      fail({
        plugin: plugin.name,
        type: "generic-error",
        message: "a plugin of this name is already loaded; left out",
        path,
      });
      return;
    }
    out.plugins.push(plugin);
  });
  return out;
}

/** The manifest fields Goat uses; paths in it add to the default folders, as in Claude Code. */
interface Manifest {
  name?: string;
  version?: string;
  description?: string;
  commands: string[];
  agents: string[];
  skills: string[];
  hooks: unknown[];
  mcpServers: unknown[];
}

function readPlugin(
  root: string,
  skipMcp: boolean,
  index: number,
  fail: (error: PluginError) => void,
): PluginDefinition | undefined {
  const manifestFile = join(root, ".claude-plugin", "plugin.json");
  const manifest = readManifest(manifestFile, (message) =>
    fail({ plugin: `inline[${index}]`, type: "manifest-validation-error", message, path: manifestFile }),
  );
  const name = manifest.name ?? basename(root);
  if (!PLUGIN_NAME.test(name)) {
    fail({
      plugin: `inline[${index}]`,
      type: "manifest-validation-error",
      message: `name ${JSON.stringify(name)} is not letters, digits, ".", "_" and "-"; the plugin is left out`,
      path: manifestFile,
    });
    return undefined;
  }
  const warn = (message: string) => fail({ plugin: name, type: "generic-error", message });
  const plugin: PluginDefinition = {
    name,
    path: root,
    commands: {},
    agents: {},
    skills: {},
    hooks: {},
    mcpServers: {},
  };
  if (manifest.version !== undefined) plugin.version = manifest.version;
  if (manifest.description !== undefined) plugin.description = manifest.description;
  for (const path of [join(root, "commands"), ...inside(root, manifest.commands, warn)]) {
    // A manifest entry may name one command file rather than a folder of them.
    const commands = path.endsWith(".md")
      ? pickFile(readPluginCommands(dirname(path), name, warn), path)
      : readPluginCommands(path, name, warn);
    Object.assign(plugin.commands, commands);
  }
  for (const dir of [join(root, "agents"), ...inside(root, manifest.agents, warn)]) {
    for (const { file, text } of readMarkdownFiles(dir, false, warn)) {
      const agent = agentFromFile(file, text, warn);
      if (agent) plugin.agents[`${name}:${agent.name}`] = agent.agent;
    }
  }
  for (const dir of [join(root, "skills"), ...inside(root, manifest.skills, warn)]) {
    Object.assign(plugin.skills, readSkillFolder(dir, "plugin", warn, `${name}:`));
  }
  const hookFail = (message: string, path?: string) =>
    fail({ plugin: name, type: "hook-load-failed", message, path });
  for (const source of [join(root, "hooks", "hooks.json"), ...insideSources(root, manifest.hooks, warn)]) {
    addHooks(plugin, source, hookFail);
  }
  if (!skipMcp) {
    const mcpFail = (message: string, path?: string) =>
      fail({ plugin: name, type: "mcp-config-invalid", message, path });
    for (const source of [join(root, ".mcp.json"), ...insideSources(root, manifest.mcpServers, warn)]) {
      addMcpServers(plugin, source, mcpFail);
    }
  }
  return plugin;
}

/** The manifest, or an empty one (with a warning through `fail` when it exists but cannot be used). */
function readManifest(file: string, fail: (message: string) => void): Manifest {
  const empty: Manifest = { commands: [], agents: [], skills: [], hooks: [], mcpServers: [] };
  const json = readJson(
    file,
    (m) => fail(`${m}; the plugin loads its folders under the folder's name`),
    false,
  );
  if (json === undefined) return empty;
  if (!isRecord(json)) {
    fail("must hold a JSON object; its folders load under the folder's name");
    return empty;
  }
  const manifest = { ...empty };
  const text = (key: string): string | undefined => {
    const value = json[key];
    if (value === undefined || typeof value === "string") return value;
    fail(`"${key}" must be a string; ignored`);
    return undefined;
  };
  manifest.name = text("name");
  manifest.version = text("version");
  manifest.description = text("description");
  for (const key of ["commands", "agents", "skills"] as const) {
    const value = json[key];
    if (value === undefined) continue;
    const list = Array.isArray(value) ? value : [value];
    if (list.every((v) => typeof v === "string")) manifest[key] = list as string[];
    else fail(`"${key}" must be a path or a list of paths; ignored`);
  }
  // `hooks` and `mcpServers` are a path to a file, the object itself, or a list of either.
  for (const key of ["hooks", "mcpServers"] as const) {
    const value = json[key];
    if (value !== undefined) manifest[key] = Array.isArray(value) ? value : [value];
  }
  return manifest;
}

/** The commands of `all` read from `file`. */
function pickFile(
  all: Record<string, SlashCommandDefinition>,
  file: string,
): Record<string, SlashCommandDefinition> {
  return Object.fromEntries(Object.entries(all).filter(([, command]) => command.file === file));
}

/** Manifest paths resolved in the plugin's folder; one leading outside it is dropped, with a warning. */
function inside(root: string, paths: readonly string[], warn: (message: string) => void): string[] {
  const resolved = paths.map((p) => resolve(root, p));
  for (const p of resolved.filter((p) => p !== root && !p.startsWith(`${root}${sep}`))) {
    warn(`${join(root, ".claude-plugin", "plugin.json")}: ${p} is outside the plugin's folder; not read`);
  }
  return resolved.filter((p) => p === root || p.startsWith(`${root}${sep}`));
}

/**
 * A manifest's `hooks` or `mcpServers` entries: inline objects as given, file paths held to the plugin's
 * folder like its other paths (hooks run commands: a file outside the plugin is not read).
 */
function insideSources(
  root: string,
  sources: readonly unknown[],
  warn: (message: string) => void,
): unknown[] {
  return sources.flatMap((s) => (typeof s === "string" ? inside(root, [s], warn) : [s]));
}

/** Adds the hooks of a file path (relative to the plugin) or an inline `{ hooks }` / bare record. */
function addHooks(
  plugin: PluginDefinition,
  source: unknown,
  fail: (message: string, path?: string) => void,
): void {
  const fromFile = typeof source === "string";
  const file = fromFile ? resolve(plugin.path, source) : join(plugin.path, ".claude-plugin", "plugin.json");
  const json = fromFile ? readJson(file, (m) => fail(`${m}; its hooks are left out`, file), false) : source;
  if (json === undefined) return;
  const record = isRecord(json) && "hooks" in json ? json.hooks : json;
  let hooks: SettingsHooks;
  try {
    hooks = parseHookSettings(withPluginRoot(record, plugin.path), file);
  } catch (error) {
    fail(`${(error as Error).message}; its hooks are left out`, file);
    return;
  }
  for (const event of Object.keys(hooks) as HookEvent[]) {
    plugin.hooks[event] = [...(plugin.hooks[event] ?? []), ...(hooks[event] ?? [])];
  }
}

/** Adds the servers of an `.mcp.json`-shaped file path or inline object, named after the plugin. */
function addMcpServers(
  plugin: PluginDefinition,
  source: unknown,
  fail: (message: string, path?: string) => void,
): void {
  const fromFile = typeof source === "string";
  const file = fromFile ? resolve(plugin.path, source) : join(plugin.path, ".claude-plugin", "plugin.json");
  // The default `.mcp.json` is optional; a path the manifest names must exist.
  const optional = file === join(plugin.path, ".mcp.json");
  const json = fromFile
    ? readJson(file, (m) => fail(`${m}; its servers are left out`, file), !optional)
    : source;
  if (json === undefined) return;
  const record = isRecord(json) && "mcpServers" in json ? json.mcpServers : json;
  if (!isRecord(record)) {
    fail("mcpServers must map server names to their configs; left out", file);
    return;
  }
  for (const [server, config] of Object.entries(record)) {
    plugin.mcpServers[`plugin_${plugin.name}_${server}`] = withPluginRoot(config, plugin.path);
  }
}

/** What a plugin's files write for the plugin's own folder, as in Claude Code. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the literal text plugins write
const PLUGIN_ROOT_VARIABLE = "${CLAUDE_PLUGIN_ROOT}";

/** The value with `${CLAUDE_PLUGIN_ROOT}` replaced by the plugin's folder in every string. */
function withPluginRoot(value: unknown, root: string): unknown {
  if (typeof value === "string") return value.replaceAll(PLUGIN_ROOT_VARIABLE, root);
  if (Array.isArray(value)) return value.map((v) => withPluginRoot(v, root));
  if (isRecord(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withPluginRoot(v, root)]));
  }
  return value;
}

/** A JSON file's value; undefined (quietly for a missing file that is not `required`) when unusable. */
function readJson(file: string, fail: (message: string) => void, required: boolean): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT" || required) {
      fail(`cannot be read (${(error as Error).message})`);
    }
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    fail(`is not valid JSON (${jsonErrorText(error, text)})`);
    return undefined;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
