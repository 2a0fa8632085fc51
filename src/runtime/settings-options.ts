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
import {
  type CliSettings,
  goatHomeDir,
  mergeSettings,
  readFlagSettingsFile,
  SettingsError,
} from "../settings/files.js";
import { type ProjectDescription, readProjectDescription } from "../settings/project-description.js";
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
  // Every file of the levels asked for, read once: the settings, .mcp.json and the definitions.
  const description = readProjectDescription({ cwd, env: callerEnv, sources });
  const path = typeof options.settings === "string" ? resolve(cwd, options.settings) : undefined;
  const flagFile = path ? [readFlagSettingsFile(path, callerEnv)] : [];
  const inline = typeof options.settings === "object" ? options.settings : undefined;
  const settings = mergeSettings([...description.settings, ...flagFile], { inline });
  for (const message of settings.warnings) warn(message);
  const out = applySettings(options, settings, cwd, callerEnv);
  const userFile = join(goatHomeDir(callerEnv), "settings.json");
  const mcpServers = settingsMcpServers(settings, description, userFile, out.env ?? callerEnv, warn);
  if (mcpServers) out.mcpServers = { ...mcpServers, ...options.mcpServers };
  // The subagents, slash commands and skills of the user and project levels' folders
  // (`.claude/agents/`, …, Goat's `.goat/…` beside them), below the options' own of the same name.
  if (!sources.includes("user") && !sources.includes("project")) return out;
  return withProjectDescription(out, description, true, warn);
}

/** The servers of the files read (and `.mcp.json` with the project), or undefined when there are none. */
function settingsMcpServers(
  settings: CliSettings,
  description: ProjectDescription,
  userSettingsFile: string,
  env: Record<string, string | undefined>,
  warn: (message: string) => void,
): SessionOptions["mcpServers"] {
  const sources = settingsMcpSources({
    cwd: description.cwd,
    settings,
    userSettingsFile,
    readProjectFile: description.mcpjson !== undefined,
    projectFile: description.mcpjson,
    warn,
  });
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
