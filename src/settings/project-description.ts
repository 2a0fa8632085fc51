/**
 * The configuration a session's folder and user bring, read once into one typed description: the
 * settings files of each level read (Claude Code's and Goat's, each with its family and level), the
 * folder's `.mcp.json`, the subagents, slash commands and skills of each level (the user's
 * `~/.claude/…` and `~/.goat/…`, the folder's `.claude/…` and `.goat/…`), each item keeping the file
 * it came from, and the configured plugins with every part they define. The `goat` command's trust
 * question reads the folder's files and items from it, the settings merge and the MCP sources read
 * its file contents, and the session applies it (`runtime/project-options.ts`): the files are read
 * once per start, not once to ask and again to load. The memory files (`CLAUDE.md` and its kin,
 * `project-memory.ts`) join it once the session's options are merged, since which levels apply and
 * where their imports may reach come from those options (`runtime/project-options.ts`); the session
 * then shows them from here rather than reading them again.
 *
 * The levels stay apart, so a folder that is not trusted drops its own items and keeps the user's
 * (a user's command of the same name included). Warnings stay with their level too: an untrusted
 * folder's broken file is not reported, since nothing of it is used.
 */
import { join } from "node:path";
import { type FileAgentDefinition, readAgentFiles } from "./claude-agents.js";
import { claudeConfigDir } from "./claude-files.js";
import { goatHomeDir, readSettingsFiles } from "./files.js";
import { type LoadedPlugins, type PluginConfig, readPlugins } from "./plugins.js";
import type { ProjectMemory } from "./project-memory.js";
import { readSkillFiles, type SkillDefinition } from "./skill-files.js";
import { readSlashCommandFiles, type SlashCommandDefinition } from "./slash-command-files.js";
import { type ConfigFileRead, readConfigFile, type SettingsFileRead } from "./source-files.js";

/** The definitions of one level. */
export interface DefinitionSet {
  /** Subagents by name, each with its file. */
  agents: Record<string, FileAgentDefinition>;
  /** Slash commands by name (no leading `/`), each with its file. */
  commands: Record<string, SlashCommandDefinition>;
  /** Skills by name, each with its folder. */
  skills: Record<string, SkillDefinition>;
  /** What could not be used of this level's files, one line each, naming the file. */
  warnings: string[];
}

/** Everything read, by where it came from. */
export interface ProjectDescription {
  /** The folder read. */
  cwd: string;
  /** The user's own (`~/.claude/agents/`, …); empty when the user level is not read. */
  user: DefinitionSet;
  /**
   * The folder's own (`.claude/agents/`, …); empty when the project level is not read, or when the
   * folder's `.claude` or `.goat` is the user's (started in the home folder: read as the user's).
   */
  project: DefinitionSet;
  /** The configured plugins as read, with what did not load. */
  plugins: LoadedPlugins;
  /** What could not be used of the plugins, one line each. */
  pluginWarnings: string[];
  /**
   * The settings files of the levels read (user, project, local), lowest precedence first, each as
   * read from disk with its family and level; missing ones included, marked `missing`.
   */
  settings: SettingsFileRead[];
  /** The folder's `.mcp.json` as read; undefined when the project level is not read. */
  mcpjson?: ConfigFileRead;
  /**
   * The memory files of the levels the session reads, each with its level and imports; set when the
   * options are applied (`withProjectDescription`), absent before or when the session reads none.
   */
  memory?: ProjectMemory;
}

/** What to read. */
export interface DescriptionRequest {
  /** The session's folder. */
  cwd: string;
  /** Where `$CLAUDE_CONFIG_DIR` and `$GOAT_HOME` are read (the user's folders). */
  env: Record<string, string | undefined>;
  /** The settings levels to read (`user`, `project`, `local`; only the first two have definition folders). */
  sources: readonly string[];
  /** Plugins to read (none when absent). */
  plugins?: readonly PluginConfig[];
}

/** Reads the description. Never throws: what cannot be used is a warning of its level. */
export function readProjectDescription(request: DescriptionRequest): ProjectDescription {
  const { cwd, env, sources } = request;
  const own = [join(cwd, ".claude"), join(cwd, ".goat")];
  const folderIsUsers = own.includes(claudeConfigDir(env)) || own.includes(goatHomeDir(env));
  const pluginWarnings: string[] = [];
  return {
    cwd,
    user: sources.includes("user") ? readLevel(cwd, env, "user") : emptySet(),
    project: sources.includes("project") && !folderIsUsers ? readLevel(cwd, env, "project") : emptySet(),
    plugins:
      request.plugins && request.plugins.length > 0
        ? readPlugins(request.plugins, cwd, (m) => pluginWarnings.push(m))
        : { plugins: [], errors: [] },
    pluginWarnings,
    settings: readSettingsFiles(cwd, env, sources),
    ...(sources.includes("project")
      ? { mcpjson: readConfigFile(join(cwd, ".mcp.json"), "MCP config file") }
      : {}),
  };
}

/**
 * The definitions that apply: the user's, then the folder's (winning by name) when `projectTrusted`,
 * with the warnings of the levels used.
 */
export function definitionsInForce(description: ProjectDescription, projectTrusted: boolean): DefinitionSet {
  const levels = projectTrusted ? [description.user, description.project] : [description.user];
  return {
    agents: Object.assign({}, ...levels.map((l) => l.agents)),
    commands: Object.assign({}, ...levels.map((l) => l.commands)),
    skills: Object.assign({}, ...levels.map((l) => l.skills)),
    warnings: levels.flatMap((l) => l.warnings),
  };
}

function readLevel(
  cwd: string,
  env: Record<string, string | undefined>,
  level: "user" | "project",
): DefinitionSet {
  const warnings: string[] = [];
  const warn = (message: string) => warnings.push(message);
  return {
    agents: readAgentFiles(cwd, env, [level], warn),
    commands: readSlashCommandFiles(cwd, env, [level], warn),
    skills: readSkillFiles(cwd, env, [level], warn),
    warnings,
  };
}

function emptySet(): DefinitionSet {
  return { agents: {}, commands: {}, skills: {}, warnings: [] };
}
