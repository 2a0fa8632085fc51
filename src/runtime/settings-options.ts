/**
 * `settingSources` and `settings` in `query()`: the same settings files the CLI reads (user,
 * project, local, each Claude Code's file then Goat's, then the `settings` path or object, later
 * winning), applied to the options with
 * the CLI's precedence. The default, as in the Claude Agent SDK, is to read none, so an embedder is
 * never surprised by a file on the machine it runs on. What an option says explicitly wins over a
 * file; lists (permission rules, directories, hooks) add up. MCP servers come from the files'
 * `mcpServers` and, with `project`, the project's `.mcp.json`, in the CLI's order; `mcpServers` given
 * as an option win by name.
 */
import { join, resolve } from "node:path";
import { parseMcpConfig } from "../mcp/config-file.js";
import { McpConfigError, mergeMcpSources, settingsMcpSources } from "../mcp/config-sources.js";
import { mergeSandboxSettings } from "../sandbox/settings.js";
import { isClaudeSettingsFile } from "../settings/claude-files.js";
import {
  type CliSettings,
  goatHomeDir,
  loadSettings,
  SettingsError,
  settingsFiles,
} from "../settings/files.js";
import { readProjectDescription } from "../settings/project-description.js";
import { mergeHooks } from "./merge-hooks.js";
import type { SessionOptions } from "./options.js";
import { withProjectDescription } from "./project-options.js";

const MODES: readonly string[] = ["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"];

/**
 * The options with the chosen settings files applied; the same object when none are asked for.
 * Throws `SettingsError` (or `McpConfigError` for an MCP server) naming the file that cannot be used;
 * what cannot be used of a Claude Code file goes to `warn` instead, and the rest applies.
 */
export function withSettings<Options extends SessionOptions>(
  options: Options,
  warn: (message: string) => void = () => {},
): Options {
  const sources = options.settingSources ?? [];
  if (sources.length === 0 && options.settings === undefined) return options;
  const cwd = options.cwd ?? process.cwd();
  const callerEnv = options.env ?? process.env;
  const path = typeof options.settings === "string" ? resolve(cwd, options.settings) : undefined;
  const files = settingsFiles(cwd, callerEnv, path, sources);
  const inline = typeof options.settings === "object" ? options.settings : undefined;
  const claudeFiles = new Set(files.filter((file) => isClaudeSettingsFile(file, callerEnv)));
  const settings = loadSettings(
    files,
    new Set(path ? [path] : []),
    inline,
    undefined,
    undefined,
    claudeFiles,
  );
  for (const message of settings.warnings) warn(message);
  const out = applySettings(options, settings, cwd, callerEnv);
  const userFile = join(goatHomeDir(callerEnv), "settings.json");
  const mcpServers = settingsMcpServers(
    settings,
    userFile,
    sources.includes("project"),
    cwd,
    out.env ?? callerEnv,
  );
  if (mcpServers) out.mcpServers = { ...mcpServers, ...options.mcpServers };
  return withDefinitionFiles(out, cwd, callerEnv, sources, warn);
}

/**
 * The subagents, slash commands and skills of the `user` and `project` levels' folders
 * (`.claude/agents/`, `.claude/commands/`, `.claude/skills/`, `~/.claude/…`, Goat's `.goat/…` beside
 * them), read once by the project loader, added below the options' own: an `agents`, `slashCommands`
 * or `skillDefinitions` entry given as an option wins over a file's of the same name.
 */
function withDefinitionFiles<Options extends SessionOptions>(
  out: Options,
  cwd: string,
  env: Record<string, string | undefined>,
  sources: readonly string[],
  warn: (message: string) => void,
): Options {
  if (!sources.includes("user") && !sources.includes("project")) return out;
  return withProjectDescription(out, readProjectDescription({ cwd, env, sources }), true, warn);
}

/** The servers of the files read (and `.mcp.json` with the project), or undefined when there are none. */
function settingsMcpServers(
  settings: CliSettings,
  userSettingsFile: string,
  readProjectFile: boolean,
  cwd: string,
  env: Record<string, string | undefined>,
): SessionOptions["mcpServers"] {
  const sources = settingsMcpSources({ cwd, settings, userSettingsFile, readProjectFile });
  if (sources.length === 0) return undefined;
  const { servers, hostServers } = mergeMcpSources(sources, env, parseMcpConfig);
  if (hostServers.length > 0) {
    throw new McpConfigError(
      `MCP server ${hostServers.map((n) => `"${n}"`).join(", ")} has type "sdk", which names a server in a Claude Agent SDK host: in query(), pass the server itself in mcpServers (createSdkMcpServer)`,
    );
  }
  return Object.keys(servers).length > 0 ? servers : undefined;
}

function applySettings<Options extends SessionOptions>(
  options: Options,
  settings: CliSettings,
  cwd: string,
  callerEnv: Record<string, string | undefined>,
): Options {
  const out: Options = { ...options };
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
    out.permissionMode = permissions.defaultMode as SessionOptions["permissionMode"];
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
