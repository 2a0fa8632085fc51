/**
 * `goat-agent/settings`: Goat's settings files, read the way the `goat` command and `query()`'s
 * `settingSources` read them — `$GOAT_HOME/settings.json`, `<cwd>/.goat/settings.json`,
 * `<cwd>/.goat/settings.local.json` and a `--settings` file or JSON text, merged in that order (model,
 * permission rules, hooks, sandbox, env, model prices, MCP servers). A file that exists but cannot be
 * used is a `SettingsError` naming it. Also how managed (policy) settings are read, and what is kept of
 * a folder's settings while the folder is not trusted.
 *
 * @example
 * import { loadSettings, settingsFiles } from "goat-agent/settings";
 * const settings = loadSettings(settingsFiles(process.cwd(), process.env));
 */
export {
  type CliSettings,
  EFFORT_LEVELS,
  goatHomeDir,
  inlineSettings,
  loadSettings,
  type PermissionSettings,
  SettingsError,
  settingsFiles,
} from "./files.js";
export { type ManagedSettings, ManagedSettingsError, readManagedSettings } from "./managed.js";
export {
  describeMcpServer,
  type RestrictedSettings,
  restrictUntrustedSettings,
} from "./untrusted-project.js";
