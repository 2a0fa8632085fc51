/**
 * MCP servers of the CLI, in Claude Code's `.mcp.json` shape, from (lowest to highest precedence)
 * the user settings file, the project's `.mcp.json`, the project settings file, the `--settings` file
 * and `--mcp-config` (files or inline JSON). A later source replaces a server of the same name.
 * `--strict-mcp-config` keeps only `--mcp-config`. Reading and JSON parsing happen with the rest of
 * the configuration; validation loads the MCP config parser (and zod) only when a source exists.
 * Any mistake stops the program with a message naming the file: a server silently left out is a
 * tool the user expects and the model never sees.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { GoatError } from "../errors.js";
import type { McpServerConfig } from "../mcp/types.js";
import type { CliSettings } from "./settings.js";

/** One place MCP servers were read from: `origin` names it in messages. */
export interface McpSource {
  origin: string;
  value: unknown;
}

/** An MCP configuration that cannot be used; the message names its file. */
export class McpConfigError extends GoatError {
  override name = "McpConfigError";
  override readonly code: string = "invalid_mcp_config";
}

/**
 * Gathers the sources in precedence order (lowest first). `userSettingsFile` tells the user file
 * apart from the project ones, so `.mcp.json` can sit between them. Throws `McpConfigError`.
 */
export function collectMcpSources(options: {
  cwd: string;
  settings: CliSettings;
  userSettingsFile: string;
  mcpConfig: string[];
  strict: boolean;
  /** False when `--setting-sources` leaves out the project: `.mcp.json` is then not read either. */
  readProjectFile?: boolean;
}): McpSource[] {
  const fromFlags = options.mcpConfig.map((value, i) => flagSource(value, i, options.mcpConfig.length));
  if (options.strict) return fromFlags;
  const fromSettings = options.settings.mcpServers.map(({ file, value }) => ({
    origin: `settings file ${file}`,
    value: { mcpServers: value },
  }));
  const user = fromSettings.filter(
    (_, i) => options.settings.mcpServers[i].file === options.userSettingsFile,
  );
  const others = fromSettings.filter(
    (_, i) => options.settings.mcpServers[i].file !== options.userSettingsFile,
  );
  const projectFile =
    options.readProjectFile === false ? undefined : readJsonFile(join(options.cwd, ".mcp.json"), false);
  const project = projectFile ? [projectFile] : [];
  return [...user, ...project, ...others, ...fromFlags];
}

/** The servers of all sources, merged; `hostServers` run in the Claude Agent SDK's host process. */
export interface ResolvedMcpServers {
  servers: Record<string, McpServerConfig>;
  /**
   * Names of `{"type": "sdk", "name": …}` entries (the Python SDK's in-process servers): reached over
   * the stream-json control channel, so only usable with `--input-format stream-json`.
   */
  hostServers: string[];
}

/**
 * Validates every source (expanding `${VAR}` from `env`) and merges them. Resolves undefined when
 * there are none, without loading the parser. Rejects with `McpConfigError` naming the source.
 */
export async function resolveMcpServers(
  sources: McpSource[],
  env: Record<string, string | undefined>,
): Promise<ResolvedMcpServers | undefined> {
  if (sources.length === 0) return undefined;
  const { parseMcpConfig } = await import("../mcp/config-file.js");
  const merged: Record<string, McpServerConfig> = {};
  const hostServers = new Set<string>();
  for (const { origin, value } of sources) {
    const { rest, names } = takeHostServers(value);
    let parsed: ReturnType<typeof parseMcpConfig>;
    try {
      parsed = parseMcpConfig(rest, env);
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

/** An `--mcp-config` value: inline JSON when it starts with `{`, else a file path relative to where the user typed it. */
function flagSource(value: string, index: number, count: number): McpSource {
  if (value.trimStart().startsWith("{")) {
    const origin = `--mcp-config inline JSON${count > 1 ? ` #${index + 1}` : ""}`;
    try {
      return { origin, value: JSON.parse(value) };
    } catch (error) {
      throw new McpConfigError(`invalid JSON in ${origin}: ${(error as Error).message}`);
    }
  }
  return readJsonFile(resolve(value), true) as McpSource;
}

function readJsonFile(file: string, required: boolean): McpSource | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && !required) return undefined;
    throw new McpConfigError(
      code === "ENOENT"
        ? `MCP config file ${file} does not exist`
        : `cannot read MCP config file ${file}: ${(error as Error).message}`,
    );
  }
  try {
    return { origin: `MCP config file ${file}`, value: JSON.parse(text) };
  } catch (error) {
    throw new McpConfigError(`invalid JSON in MCP config file ${file}: ${(error as Error).message}`);
  }
}
