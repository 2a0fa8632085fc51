/**
 * What a folder's own configuration would run on this machine or open up, read before anything of
 * it is applied: the command hooks, MCP servers, allow rules, additional directories, permission
 * mode, sandbox exceptions and `env` of its settings files, its subagents and slash commands (Claude Code's `.claude/settings.json`
 * and `.claude/settings.local.json`, Goat's `.goat/settings.json` and `.goat/settings.local.json`:
 * the two families are asked about as one), and the servers of its `.mcp.json`. A folder that
 * declares none of these needs no trust question: what else its files say only narrows the session.
 *
 * Reading is cheap (a few small files, already in the page cache for the settings loader
 * that reads them next) and never fails: a file that cannot be read or parsed declares nothing
 * here, and the settings loader then reports it with its usual error.
 */
import { readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import {
  claudeConfigDir,
  type DefinitionSet,
  describeMcpServer,
  goatHomeDir,
  type ProjectDescription,
  readProjectDescription,
  restrictUntrustedSettings,
  settingsFiles,
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
  description: ProjectDescription = readProjectDescription({ cwd, env, sources: ["project"] }),
): ProjectConfig {
  const projectFiles = projectSettingsFiles(cwd, env, sources);
  const declaring: DeclaringFile[] = [];
  for (const file of projectFiles) {
    const json = readJsonObject(file);
    const items = json ? restrictUntrustedSettings(json).leftOut : [];
    if (items.length > 0) declaring.push({ file: relative(cwd, file), items });
  }
  const readsProject = sources === undefined || sources.includes("project");
  if (readsProject) declaring.push(...projectDefinitions(cwd, description.project));
  const mcpjsonServers = readsProject ? readMcpjsonServers(join(cwd, ".mcp.json")) : [];
  return { cwd, settingsFiles: projectFiles, declaring, mcpjsonServers };
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
  cwd: string,
  env: Record<string, string | undefined>,
  sources?: readonly string[],
): string[] {
  const homes = [goatHomeDir(env), claudeConfigDir(env)];
  const userFiles = settingsFiles(cwd, env, undefined, ["user"]);
  return settingsFiles(cwd, env, undefined, sources).filter(
    (file) => !userFiles.includes(file) && !homes.some((home) => file.startsWith(home + sep)),
  );
}

/** The servers of an `.mcp.json` (`{ "mcpServers": { … } }` or the bare record), in file order. */
function readMcpjsonServers(file: string): McpjsonServer[] {
  const json = readJsonObject(file);
  if (!json) return [];
  const record = "mcpServers" in json ? json.mcpServers : json;
  if (record === null || typeof record !== "object" || Array.isArray(record)) return [];
  return Object.entries(record as Record<string, unknown>).map(([name, config]) => ({
    name,
    description: describeMcpServer(config),
  }));
}

function readJsonObject(file: string): Record<string, unknown> | undefined {
  try {
    const json: unknown = JSON.parse(readFileSync(file, "utf8"));
    return json !== null && typeof json === "object" && !Array.isArray(json)
      ? (json as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
