/**
 * What a folder's own configuration would run on this machine or open up, read before anything of
 * it is applied: the command hooks, MCP servers, allow rules, additional directories, permission
 * mode, sandbox exceptions and `env` of its settings files, its subagents and slash commands (Claude Code's `.claude/settings.json`
 * and `.claude/settings.local.json`, Goat's `.goat/settings.json` and `.goat/settings.local.json`:
 * the two families are asked about as one), and the servers of its `.mcp.json`. A folder that
 * declares none of these needs no trust question: what else its files say only narrows the session.
 *
 * Nothing is read here: the files are the project description's (`settings/project-description.ts`),
 * read once and then merged by the settings loader from the same reads. A file that cannot be read
 * or parsed declares nothing here, and the settings loader then reports it with its usual error.
 */
import { join, relative, sep } from "node:path";
import {
  type ConfigFileRead,
  claudeConfigDir,
  type DefinitionSet,
  describeMcpServer,
  goatHomeDir,
  type ProjectDescription,
  readProjectDescription,
  restrictUntrustedSettings,
  type SettingsFileRead,
} from "../../settings/index.js";

/** One project file and what trusting the folder would let it do, one phrase each. */
interface DeclaringFile {
  /** The file, relative to the folder (`.goat/settings.json`). */
  file: string;
  items: string[];
}

/** A server of the project's `.mcp.json`. */
export interface McpjsonServer {
  name: string;
  /** Its command line, or its transport and URL. */
  description: string;
}

/** What a folder's configuration declares. */
export interface ProjectConfig {
  cwd: string;
  /** The project's settings files Goat reads for this folder (absolute paths, existing or not). */
  settingsFiles: string[];
  /** The settings files that declare something trust would let in, with what. */
  declaring: DeclaringFile[];
  /** The servers of `.mcp.json` (none when it is absent or the project is not read). */
  mcpjsonServers: McpjsonServer[];
}

/**
 * Reads the folder's configuration. `sources` is `--setting-sources` (undefined: all): a project
 * file left out there is not read here either.
 */
export function readProjectConfig(
  cwd: string,
  env: Record<string, string | undefined>,
  sources?: readonly string[],
  description: ProjectDescription = readProjectDescription({
    cwd,
    env,
    sources: (sources ?? ["project", "local"]).filter((s) => s !== "user"),
  }),
): ProjectConfig {
  const projectFiles = projectSettingsFiles(description.settings, env);
  const declaring: DeclaringFile[] = [];
  for (const read of projectFiles) {
    const items = read.object ? restrictUntrustedSettings(read.object).leftOut : [];
    if (items.length > 0) declaring.push({ file: relative(cwd, read.file), items });
  }
  const readsProject = sources === undefined || sources.includes("project");
  if (readsProject) declaring.push(...projectDefinitions(cwd, description.project));
  const mcpjsonServers = readsProject ? mcpjsonServersOf(description.mcpjson) : [];
  return { cwd, settingsFiles: projectFiles.map((read) => read.file), declaring, mcpjsonServers };
}

/**
 * The folder's subagents, slash commands and skills (`.claude/agents/`, `.claude/commands/`,
 * `.claude/skills/`, Goat's `.goat/…`), as the project loader read them: a command's `!` lines run
 * commands, an agent's prompt steers the model and a skill's allowed-tools approve calls, so they
 * wait for trust. None when the folder's `.claude` or `.goat` is the user's own (started at home).
 */
function projectDefinitions(cwd: string, project: DefinitionSet): DeclaringFile[] {
  const out: DeclaringFile[] = [];
  const byName = <T>(record: Record<string, T>) =>
    Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const groups: Array<[string, string, Array<[string, string | undefined]>]> = [
    ["commands", "slash commands", byName(project.commands).map(([n, c]) => [`/${n}`, c.file])],
    ["agents", "subagents", Object.entries(project.agents).map(([n, a]) => [n, a.file])],
    ["skills", "skills", Object.entries(project.skills).map(([n, s]) => [n, s.dir])],
  ];
  for (const [kind, label, items] of groups) {
    for (const folder of [`.claude/${kind}`, `.goat/${kind}`]) {
      const names = items.filter(([, file]) => file?.startsWith(join(cwd, folder) + sep)).map(([n]) => n);
      if (names.length > 0) out.push({ file: folder, items: [`${label} ${names.join(", ")}`] });
    }
  }
  return out;
}

/** Whether the folder declares anything that only its trust may let in. */
export function needsTrust(project: ProjectConfig): boolean {
  return project.declaring.length > 0 || project.mcpjsonServers.length > 0;
}

/**
 * The settings files of the folder itself: the project and local files, unless they are the user's
 * own (started in the home folder, `~/.goat/settings.json` and `~/.claude/settings.json` are both).
 */
function projectSettingsFiles(
  reads: readonly SettingsFileRead[],
  env: Record<string, string | undefined>,
): SettingsFileRead[] {
  const homes = [goatHomeDir(env), claudeConfigDir(env)];
  const userFiles = new Set(reads.filter((r) => r.scope === "user").map((r) => r.file));
  const out = new Map<string, SettingsFileRead>();
  for (const read of reads) {
    if (read.scope === "user" || read.scope === "flag" || userFiles.has(read.file)) continue;
    if (homes.some((home) => read.file.startsWith(home + sep))) continue;
    out.set(read.file, read);
  }
  return [...out.values()];
}

/** The servers of an `.mcp.json` (`{ "mcpServers": { … } }` or the bare record), in file order. */
function mcpjsonServersOf(read: ConfigFileRead | undefined): McpjsonServer[] {
  const json = read?.json;
  if (json === null || typeof json !== "object" || Array.isArray(json)) return [];
  const record = "mcpServers" in json ? (json as { mcpServers: unknown }).mcpServers : json;
  if (record === null || typeof record !== "object" || Array.isArray(record)) return [];
  return Object.entries(record as Record<string, unknown>).map(([name, config]) => ({
    name,
    description: describeMcpServer(config),
  }));
}
