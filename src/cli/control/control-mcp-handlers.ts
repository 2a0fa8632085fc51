/**
 * The MCP control requests a Claude Agent SDK host sends: status, the run-time server set (with the
 * host's own in-process servers among them), reconnect, toggle, reading a server's resource
 * (`readMcpResource`) and the per-server permission override (`setMcpPermissionModeOverride`).
 */
import type { McpServerConfig } from "../../index.js";
import { takeHostServers } from "../mcp-servers.js";
import type { ControlSubtypeHandler } from "./control-context.js";
import { ControlError, type ControlRequestBody, isRecord } from "./control-protocol.js";

/** The MCP subtypes, by name. */
export const MCP_HANDLERS: Record<string, ControlSubtypeHandler> = {
  async mcp_status(_request, q) {
    return { mcpServers: await q.mcpServerStatus() };
  },
  async mcp_set_servers(request, q, ctx) {
    if (!isRecord(request.servers)) throw new Error('mcp_set_servers: "servers" must be an object by name');
    const { parseMcpConfig } = await import("../../mcp/index.js");
    const { rest, names } = takeHostServers(request.servers);
    const parsed = parseMcpConfig(rest, process.env);
    const servers: Record<string, McpServerConfig> = { ...parsed.servers };
    for (const name of names) servers[name] = ctx.hostMcp().config(name);
    const result = await q.setMcpServers(servers);
    // A server whose config is wrong is not added; the host learns why, as for one that fails to connect.
    return { ...result, errors: { ...result.errors, ...parsed.errors } };
  },
  async mcp_reconnect(request, q) {
    await q.reconnectMcpServer(serverName(request));
    return {};
  },
  async mcp_toggle(request, q) {
    if (typeof request.enabled !== "boolean") throw new Error('mcp_toggle: "enabled" must be true or false');
    await q.toggleMcpServer(serverName(request), request.enabled);
    return {};
  },
  async mcp_read_resource(request, q) {
    if (typeof request.uri !== "string" || request.uri === "") {
      throw new Error('mcp_read_resource: "uri" is required');
    }
    // Any scheme the server serves, not only Claude Code's ui://: the host configured the server.
    try {
      return { ...(await q.readMcpResource(serverName(request), request.uri)) };
    } catch (error) {
      throw new ControlError((error as Error).message, "mcp_error");
    }
  },
  async set_mcp_permission_mode_override(request, q) {
    const mode = request.mode;
    if (mode === "auto") {
      throw new ControlError(
        'set_mcp_permission_mode_override: Goat has no auto mode (no classifier); use "default" or null',
        "unsupported_setting",
      );
    }
    if (mode !== "default" && mode !== null) {
      throw new Error('set_mcp_permission_mode_override: "mode" must be "default", "auto" or null');
    }
    return { ...(await q.setMcpPermissionModeOverride(serverName(request), mode)) };
  },
};

function serverName(request: ControlRequestBody): string {
  const name = request.serverName ?? request.server_name;
  if (typeof name !== "string" || name === "")
    throw new Error(`${request.subtype}: "serverName" is required`);
  return name;
}
