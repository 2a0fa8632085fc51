/**
 * Connects to one MCP server of any kind and lists its tools. `createSdkMcpServer` servers are
 * connected in-process, without the MCP protocol; every other kind (stdio, Streamable HTTP, SSE, a
 * live `McpServer`, a host's server over a transport) goes through `@modelcontextprotocol/sdk`, an
 * optional peer dependency loaded here on first use. When it is not installed, the server fails with
 * a message that names the package to install; the session goes on without it.
 */
import { GoatError } from "../errors.js";
import type { ToolContext } from "../tools/types.js";
import { isSdkServerRecipe } from "./sdk-server.js";
import type { McpToolInfo } from "./tool-adapter.js";
import type { CallToolResult, Implementation, McpResourceContents, McpServerConfig } from "./types.js";

/** A live connection to one server. */
export interface McpConnection {
  serverInfo?: Implementation;
  tools: McpToolInfo[];
  /** The stdio server's pid (the leader of its process group). */
  pid?: number;
  /** Whether the server offers resources (its `resources` capability). */
  resources: boolean;
  /** Every resource the server lists (all pages). */
  listResources(signal: AbortSignal): Promise<McpListedResource[]>;
  /** The server's `resources/read` answer for `uri`. */
  readResource(uri: string, signal: AbortSignal): Promise<McpResourceContents>;
  call(
    toolName: string,
    args: Record<string, unknown>,
    ctx: ToolContext,
    onProgress: (m: string) => void,
  ): Promise<CallToolResult>;
  /** Closes the connection; a stdio server's process group is killed. Never rejects. */
  close(): Promise<void>;
}

/** One resource as a server lists it. */
export interface McpListedResource {
  uri: string;
  name: string;
  mimeType?: string;
  description?: string;
}

/** What `connectMcpServer` needs besides the config. */
export interface ConnectOptions {
  cwd: string;
  timeoutMs: number;
  toolTimeoutMs: number;
  signal: AbortSignal;
  /** The environment stdio servers start from; default `process.env`. */
  env?: Record<string, string | undefined>;
  /** The connection dropped after it was established (crash, network); `reason` says why. */
  onLost(reason: string): void;
  /** The server's tool list changed (after `notifications/tools/list_changed`). */
  onToolsChanged(tools: McpToolInfo[]): void;
}

/** The npm package MCP clients need. */
export const MCP_SDK_PACKAGE = "@modelcontextprotocol/sdk";

/** Connects to a server and lists its tools; rejects with a readable reason on failure or timeout. */
export async function connectMcpServer(
  config: McpServerConfig,
  opts: ConnectOptions,
): Promise<McpConnection> {
  if (config.type === "sdk" && isSdkServerRecipe(config.instance)) {
    const { connectInProcess } = await import("./in-process.js");
    return connectInProcess(config.instance);
  }
  const { connectWithMcpSdk } = await loadMcpClient();
  return connectWithMcpSdk(config, opts);
}

/** Loads the MCP SDK client code; a missing package becomes a `GoatError` saying what to install. */
async function loadMcpClient(): Promise<typeof import("./sdk-client.js")> {
  try {
    return await import("./sdk-client.js");
  } catch (error) {
    if (isMissingPackage(error, MCP_SDK_PACKAGE)) {
      throw new GoatError(
        `MCP servers other than createSdkMcpServer() need the package ${MCP_SDK_PACKAGE}, which is not installed: npm install ${MCP_SDK_PACKAGE}`,
        { code: "missing_dependency", cause: error },
      );
    }
    throw error;
  }
}

/** True when `error` is Node's "cannot find package" for `name` (not some other failed import). */
export function isMissingPackage(error: unknown, name: string): boolean {
  const e = error as { code?: string; message?: string } | undefined;
  return (
    (e?.code === "ERR_MODULE_NOT_FOUND" || e?.code === "MODULE_NOT_FOUND") &&
    typeof e.message === "string" &&
    e.message.includes(`'${name}`)
  );
}
