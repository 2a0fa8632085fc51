/**
 * MCP servers of the CLI, in Claude Code's `.mcp.json` shape: those of the settings files and the
 * project's `.mcp.json` (read as `query()` reads them, `src/mcp/config-sources.ts`), then
 * `--mcp-config` (files or inline JSON), which wins. `--strict-mcp-config` keeps only `--mcp-config`.
 * Reading and JSON parsing happen with the rest of the configuration; validation loads the MCP config
 * parser (and zod) only when a source exists.
 */
import { resolve } from "node:path";
import {
  McpConfigError,
  type McpSource,
  mergeMcpSources,
  type ResolvedMcpServers,
  readMcpConfigFile,
  settingsMcpSources,
} from "../mcp/index.js";
import type { ConfigFileRead } from "../settings/index.js";
import type { CliSettings } from "./settings.js";

export {
  McpConfigError,
  type McpSource,
  type ResolvedMcpServers,
  takeHostServers,
} from "../mcp/index.js";

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
  /** Which servers of `.mcp.json` to keep (workspace trust and the user's approvals); all when absent. */
  keepProjectServer?: (name: string) => boolean;
  /** `.mcp.json` as the project description read it. */
  projectFile?: ConfigFileRead;
  /** Where a `.mcp.json` that is not JSON is reported (left out, the rest applies). */
  warn?: (message: string) => void;
}): McpSource[] {
  const fromFlags = options.mcpConfig.map((value, i) => flagSource(value, i, options.mcpConfig.length));
  if (options.strict) return fromFlags;
  const fromSettings = settingsMcpSources({ ...options, readProjectFile: options.readProjectFile !== false });
  return [...fromSettings, ...fromFlags];
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
  const { parseMcpConfig } = await import("../mcp/index.js");
  return mergeMcpSources(sources, env, parseMcpConfig);
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
  return readMcpConfigFile(resolve(value), true) as McpSource;
}
