/**
 * What a control request's handler is given: the session's side (`ControlHandlerContext`) and the
 * handler's own shape. The subtypes' handlers live in `control-handlers.ts`, `control-mcp-handlers.ts`
 * and `control-settings.ts`, which all import this and not each other.
 */
import type { Query } from "../../index.js";
import type { CliQueryOptions } from "../sdk-options.js";
import type { HostMcpServers } from "./control-mcp.js";
import type { ControlRequestBody } from "./control-protocol.js";

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
  /** The session's options as the query was created with them. */
  options: () => CliQueryOptions;
  /** `get_usage` from what the stream showed (cost, time, tokens, lines changed). */
  usage: () => Record<string, unknown>;
  /** `--setting-sources` (undefined: every settings file), for `update_settings`. */
  settingSources?: readonly string[];
}

/** Answers one subtype: the success payload, or a throw whose message is the error answer. */
export type ControlSubtypeHandler = (
  request: ControlRequestBody,
  q: Query,
  ctx: ControlHandlerContext,
) => Promise<Record<string, unknown>>;
