/**
 * MCP servers from settings files and the project's `.mcp.json`, in Claude Code's shape, read the same
 * way by the `goat` command and by `query()` (with `settingSources`). Precedence, lowest first: the user
 * settings file, `.mcp.json` (only when the project is read), the project and local settings files,
 * then the `--settings` file or `settings` option. A later source replaces a server of the same name.
 * Any mistake is an error naming its file: a server silently left out is a tool the user expects and
 * the model never sees.
 */
import { join } from "node:path";
import type { CliSettings } from "../settings/files.js";
import { type ConfigFileRead, readConfigFile } from "../settings/source-files.js";
import type { ParsedMcpConfig } from "./config-file.js";
import { McpConfigError } from "./errors.js";
import type { McpServerConfig } from "./types.js";

/** One place MCP servers were read from: `origin` names it in messages. */
export interface McpSource {
  origin: string;
  value: unknown;
}

/** An MCP configuration that cannot be used (defined in `errors.ts`, beside the parser that throws it too). */
export { McpConfigError };

/**
 * The sources of the settings files and `.mcp.json`, lowest precedence first. `userSettingsFile` tells
 * the user file apart from the project ones, so `.mcp.json` can sit between them. Throws
 * `McpConfigError` for a `.mcp.json` that cannot be read or parsed.
 */
export function settingsMcpSources(options: {
  cwd: string;
  settings: CliSettings;
  userSettingsFile: string;
  /** False when the project's sources are not read: `.mcp.json` is then not read either. */
  readProjectFile: boolean;
  /**
   * Which servers of `.mcp.json` to keep (the user's approvals, `goat`'s workspace trust); all of
   * them when absent.
   */
  keepProjectServer?: (name: string) => boolean;
  /** `.mcp.json` as the project description read it (read here when absent). */
  projectFile?: ConfigFileRead;
  /**
   * Where a `.mcp.json` that is not JSON is reported: the file is then left out and the other
   * sources still apply. Without it, that is an `McpConfigError`.
   */
  warn?: (message: string) => void;
}): McpSource[] {
  const { settings, keepProjectServer } = options;
  const fromSettings = settings.mcpServers.map(({ file, value }) => ({
    file,
    source: { origin: `settings file ${file}`, value: { mcpServers: value } },
  }));
  const user = fromSettings.filter((s) => s.file === options.userSettingsFile).map((s) => s.source);
  const others = fromSettings.filter((s) => s.file !== options.userSettingsFile).map((s) => s.source);
  const read = options.readProjectFile ? projectSource(options) : undefined;
  const projectFile =
    read && keepProjectServer ? { ...read, value: keepServers(read.value, keepProjectServer) } : read;
  return [...user, ...(projectFile ? [projectFile] : []), ...others];
}

/** `.mcp.json` as a source, from the description's read (or the disk); undefined when missing or left out. */
function projectSource(options: {
  cwd: string;
  projectFile?: ConfigFileRead;
  warn?: (message: string) => void;
}): McpSource | undefined {
  const read = options.projectFile ?? readConfigFile(join(options.cwd, ".mcp.json"), "MCP config file");
  if (read.missing) return undefined;
  if (read.problem !== undefined) {
    if (!options.warn) throw new McpConfigError(read.problem);
    options.warn(`${read.problem}; its servers were left out`);
    return undefined;
  }
  return { origin: `MCP config file ${read.file}`, value: read.json };
}

/** An `mcpServers` value (wrapped or bare) with only the servers `keep` names; other shapes as they are. */
function keepServers(value: unknown, keep: (name: string) => boolean): unknown {
  if (!isObject(value)) return value;
  const wrapped = "mcpServers" in value;
  const record = wrapped ? value.mcpServers : value;
  if (!isObject(record)) return value;
  const kept = Object.fromEntries(Object.entries(record).filter(([name]) => keep(name)));
  return wrapped ? { ...value, mcpServers: kept } : kept;
}

/** Reads an MCP config file as a source; undefined for a missing file that is not `required`. */
export function readMcpConfigFile(file: string, required: boolean): McpSource | undefined {
  const read = readConfigFile(file, "MCP config file");
  if (read.missing) {
    if (!required) return undefined;
    throw new McpConfigError(`MCP config file ${file} does not exist`);
  }
  if (read.problem !== undefined) throw new McpConfigError(read.problem);
  return { origin: `MCP config file ${file}`, value: read.json };
}

/** The servers of all sources, merged; `hostServers` run in the Claude Agent SDK's host process. */
export interface ResolvedMcpServers {
  servers: Record<string, McpServerConfig>;
  /**
   * Names of `{"type": "sdk", "name": …}` entries (the Python SDK's in-process servers): reached over
   * the stream-json control channel, so only usable by `goat --input-format stream-json`.
   */
  hostServers: string[];
}

/**
 * Validates every source with `parse` (the MCP config parser, which expands `${VAR}` from `env`) and
 * merges them in order. Throws `McpConfigError` naming the source of the first bad server.
 */
export function mergeMcpSources(
  sources: readonly McpSource[],
  env: Record<string, string | undefined>,
  parse: (value: unknown, env: Record<string, string | undefined>) => ParsedMcpConfig,
): ResolvedMcpServers {
  const merged: Record<string, McpServerConfig> = {};
  const hostServers = new Set<string>();
  for (const { origin, value } of sources) {
    const { rest, names } = takeHostServers(value);
    let parsed: ParsedMcpConfig;
    try {
      parsed = parse(rest, env);
    } catch (error) {
      throw new McpConfigError(`${origin}: ${(error as Error).message}`);
    }
    const [bad] = Object.entries(parsed.errors);
    if (bad) throw new McpConfigError(`MCP server "${bad[0]}" in ${origin}: ${bad[1]}`);
    // A later source replaces a server of the same name, whatever its kind.
    for (const name of Object.keys(parsed.servers)) hostServers.delete(name);
    for (const name of names) {
      delete merged[name];
      hostServers.add(name);
    }
    Object.assign(merged, parsed.servers);
  }
  return { servers: merged, hostServers: [...hostServers] };
}

/**
 * Takes the `{"type": "sdk"}` entries (servers living in the SDK host's process, which the Python SDK
 * lists in `--mcp-config` and the TypeScript SDK sends to `mcp_set_servers`) out of an `mcpServers`
 * value. Returns the other entries in the same shape, and the names taken.
 */
export function takeHostServers(value: unknown): { rest: unknown; names: string[] } {
  if (!isObject(value)) return { rest: value, names: [] };
  const wrapped = "mcpServers" in value;
  const record = wrapped ? value.mcpServers : value;
  if (!isObject(record)) return { rest: value, names: [] };
  const names: string[] = [];
  const others: Record<string, unknown> = {};
  for (const [name, config] of Object.entries(record)) {
    if (isObject(config) && config.type === "sdk") names.push(name);
    else others[name] = config;
  }
  if (names.length === 0) return { rest: value, names };
  return { rest: wrapped ? { ...value, mcpServers: others } : others, names };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
