/**
 * `goat-agent/settings`: the settings files, read the way the `goat` command and `query()`'s
 * `settingSources` read them — per level Claude Code's file then Goat's: `~/.claude/settings.json`
 * (or `$CLAUDE_CONFIG_DIR`) and `$GOAT_HOME/settings.json`, `<cwd>/.claude/settings.json` and
 * `<cwd>/.goat/settings.json`, `<cwd>/.claude/settings.local.json` and `<cwd>/.goat/settings.local.json`,
 * then a `--settings` file or JSON text, merged in that order (model, permission rules, hooks, sandbox,
 * env, model prices, MCP servers). A Goat file that exists but cannot be used is a `SettingsError`
 * naming it; what cannot be used of a Claude file is a warning. Also how managed (policy) settings are read, and what is kept of
 * a folder's settings while the folder is not trusted; and the subagents, slash commands and skills of
 * `.claude/agents/`, `.claude/commands/`, `.claude/skills/` and their user and Goat counterparts.
 *
 * @example
 * import { loadSettings, settingsFiles } from "goat-agent/settings";
 * const settings = loadSettings(settingsFiles(process.cwd(), process.env));
 */

export { type FileAgentDefinition, readAgentFiles } from "./claude-agents.js";
export { claudeConfigDir, isClaudeSettingsFile } from "./claude-files.js";
export {
  type CliSettings,
  EFFORT_LEVELS,
  goatHomeDir,
  inlineSettings,
  loadSettings,
  mergeSettings,
  type PermissionSettings,
  readFlagSettingsFile,
  readSettingsFiles,
  SettingsError,
  type SettingsMergeOptions,
  settingsFiles,
} from "./files.js";
export { type ManagedSettings, ManagedSettingsError, readManagedSettings } from "./managed.js";
export { sessionManagedSettings, systemManagedSettingsFile } from "./managed-file.js";
export type { ConditionalRule } from "./memory-files.js";
export type { MemoryFile } from "./memory-imports.js";
export {
  type LoadedPlugins,
  type PluginConfig,
  type PluginDefinition,
  type PluginError,
  readPlugins,
} from "./plugins.js";
export {
  type DefinitionSet,
  type DescriptionRequest,
  definitionsInForce,
  type ProjectDescription,
  readProjectDescription,
} from "./project-description.js";
export type { ProjectMemory } from "./project-memory.js";
export { readSkillFiles, type SkillDefinition } from "./skill-files.js";
export { readSlashCommandFiles, type SlashCommandDefinition } from "./slash-command-files.js";
export {
  type ConfigFileRead,
  readConfigFile,
  readSettingsFile,
  type SettingsFamily,
  type SettingsFileRead,
  type SettingsScope,
} from "./source-files.js";
export {
  describeMcpServer,
  type RestrictedSettings,
  restrictUntrustedSettings,
} from "./untrusted-project.js";
