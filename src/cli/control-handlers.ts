/**
 * What each host control request does: the subtypes Claude Code answers that map onto `Query`'s
 * methods (`interrupt`, `set_model`, `set_permission_mode`, `set_max_thinking_tokens`, the MCP ones),
 * with Claude Code's response shapes. `initialize` is the session's (it shapes the query's options).
 * An unknown subtype is an error answer naming it, never a crash.
 */
import type { Query } from "../agent/query.js";
import type { McpServerConfig } from "../mcp/types.js";
import { PERMISSION_MODES, type PermissionMode } from "../permissions/types.js";
import { type ControlRequestBody, type ControlRequestHandler, isRecord } from "./control-protocol.js";

/** What the handlers need from the session. */
export interface ControlHandlerContext {
  /** The query, once it exists (requests that arrive before it wait). */
  query: () => Promise<Query>;
  /** Answers `initialize`. */
  initialize: (request: ControlRequestBody) => Record<string, unknown>;
}

type Handler = (request: ControlRequestBody, q: Query) => Promise<Record<string, unknown>>;

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
  async mcp_set_servers(request, q) {
    if (!isRecord(request.servers)) throw new Error('mcp_set_servers: "servers" must be an object by name');
    return { ...(await q.setMcpServers(request.servers as Record<string, McpServerConfig>)) };
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
export const CONTROL_SUBTYPES: readonly string[] = ["initialize", ...Object.keys(HANDLERS)];

/** Creates the handler the channel runs for each host request. */
export function createControlHandler(ctx: ControlHandlerContext): ControlRequestHandler {
  return async (request) => {
    if (request.subtype === "initialize") return ctx.initialize(request);
    const handler = Object.hasOwn(HANDLERS, request.subtype) ? HANDLERS[request.subtype] : undefined;
    if (!handler) {
      throw new Error(
        `Unsupported control request subtype: ${request.subtype} (supported: ${CONTROL_SUBTYPES.join(", ")})`,
      );
    }
    return handler(request, await ctx.query());
  };
}

function serverName(request: ControlRequestBody): string {
  const name = request.serverName ?? request.server_name;
  if (typeof name !== "string" || name === "")
    throw new Error(`${request.subtype}: "serverName" is required`);
  return name;
}
