/**
 * Connects to one MCP server of any kind and lists its tools. `createSdkMcpServer` servers are
 * connected in-process, without the MCP protocol; every other kind (stdio, Streamable HTTP, SSE, a
 * live `McpServer`, a host's server over a transport) goes through `@modelcontextprotocol/sdk`, an
 * optional peer dependency loaded here on first use. When it is not installed, the server fails with
 * a message that names the package to install; the session goes on without it.
 */
import { GoatError } from "../errors.js";
import type { ConnectOptions, McpConnection } from "./connection.js";
import { isSdkServerRecipe } from "./sdk-server.js";
import type { McpServerConfig } from "./types.js";

/** The npm package MCP clients need. */
const MCP_SDK_PACKAGE = "@modelcontextprotocol/sdk";

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
function isMissingPackage(error: unknown, name: string): boolean {
  const e = error as { code?: string; message?: string } | undefined;
  return (
    (e?.code === "ERR_MODULE_NOT_FOUND" || e?.code === "MODULE_NOT_FOUND") &&
    typeof e.message === "string" &&
    e.message.includes(`'${name}`)
  );
}
