/**
 * What each host control request does: the subtypes Claude Code answers that map onto `Query`'s
 * methods (`interrupt`, `set_model`, `set_permission_mode`, `set_max_thinking_tokens`, the MCP ones),
 * with Claude Code's response shapes. `initialize` is the session's (it shapes the query's options).
 * An unknown subtype is an error answer naming it, never a crash.
 */
import type { Query } from "../agent/query.js";
import type { McpServerConfig } from "../mcp/types.js";
import { PERMISSION_MODES, type PermissionMode } from "../permissions/types.js";
import type { HostMcpServers } from "./control-mcp.js";
import { type ControlRequestBody, type ControlRequestHandler, isRecord } from "./control-protocol.js";
import { takeHostServers } from "./mcp-servers.js";

/** What the handlers need from the session. */
export interface ControlHandlerContext {
  /** The query, once it exists (requests that arrive before it wait). */
  query: () => Promise<Query>;
  /** Answers `initialize`. */
  initialize: (request: ControlRequestBody) => Promise<Record<string, unknown>>;
  /** Hands a message the host's in-process MCP server sent on its own to its connection. */
  mcpMessage: (serverName: string, message: unknown) => void;
  /** The host's in-process MCP servers (for `mcp_set_servers` entries of type "sdk"). */
  hostMcp: () => HostMcpServers;
}

type Handler = (
  request: ControlRequestBody,
  q: Query,
  ctx: ControlHandlerContext,
) => Promise<Record<string, unknown>>;

const HANDLERS: Record<string, Handler> = {
  async interrupt(_request, q) {
    await q.interrupt();
    // Messages queued behind the interrupted turn stay queued and run next.
    return { still_queued: [] };
  },
  async set_model(request, q) {
    const model = request.model;
    if (model !== undefined && model !== null && typeof model !== "string") {
      throw new Error('set_model: "model" must be a string (or absent for the configured model)');
    }
    // Claude Code's "default" means the configured model, as an absent one does.
    const next = typeof model === "string" && model !== "" && model !== "default" ? model : undefined;
    await q.setModel(next);
    return { model: next ?? "default" };
  },
  async set_permission_mode(request, q) {
    const mode = request.mode;
    if (typeof mode !== "string" || !(PERMISSION_MODES as readonly string[]).includes(mode)) {
      throw new Error(
        `set_permission_mode: "mode" must be one of ${PERMISSION_MODES.join(", ")} (got ${JSON.stringify(mode)})`,
      );
    }
    await q.setPermissionMode(mode as PermissionMode);
    return { mode };
  },
  async set_max_thinking_tokens(request, q) {
    const tokens = request.max_thinking_tokens;
    if (tokens !== null && tokens !== undefined && (typeof tokens !== "number" || !(tokens >= 0))) {
      throw new Error('set_max_thinking_tokens: "max_thinking_tokens" must be a number ≥ 0 or null');
    }
    await q.setMaxThinkingTokens(typeof tokens === "number" && tokens > 0 ? tokens : null);
    return {};
  },
  async mcp_status(_request, q) {
    return { mcpServers: await q.mcpServerStatus() };
  },
  async mcp_set_servers(request, q, ctx) {
    if (!isRecord(request.servers)) throw new Error('mcp_set_servers: "servers" must be an object by name');
    const { parseMcpConfig } = await import("../mcp/config-file.js");
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
};

/** The subtypes the handler answers (for error messages and the initialize response). */
export const CONTROL_SUBTYPES: readonly string[] = ["initialize", "mcp_message", ...Object.keys(HANDLERS)];

/** Creates the handler the channel runs for each host request. */
export function createControlHandler(ctx: ControlHandlerContext): ControlRequestHandler {
  return async (request) => {
    if (request.subtype === "initialize") return ctx.initialize(request);
    if (request.subtype === "mcp_message") {
      // The host's server speaks first (a tool list change): no query needed to take it.
      if (typeof request.server_name !== "string") throw new Error('mcp_message: "server_name" is required');
      ctx.mcpMessage(request.server_name, request.message);
      return { mcp_response: { jsonrpc: "2.0", result: {}, id: 0 } };
    }
    const handler = Object.hasOwn(HANDLERS, request.subtype) ? HANDLERS[request.subtype] : undefined;
    if (!handler) {
      throw new Error(
        `Unsupported control request subtype: ${request.subtype} (supported: ${CONTROL_SUBTYPES.join(", ")})`,
      );
    }
    return handler(request, await ctx.query(), ctx);
  };
}

function serverName(request: ControlRequestBody): string {
  const name = request.serverName ?? request.server_name;
  if (typeof name !== "string" || name === "")
    throw new Error(`${request.subtype}: "serverName" is required`);
  return name;
}
