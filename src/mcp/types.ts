/**
 * The shapes of MCP configuration and status, the same as the Claude Agent SDK's (`mcpServers`,
 * `mcpServerStatus()`, `setMcpServers()`), plus the manager's interface, and the few MCP protocol
 * shapes they mention. Written out here rather than imported, so Goat's types need neither the MCP
 * SDK (an optional peer) nor zod (its schemas are any Standard Schema).
 */
import type { InferShape, StandardShape } from "../tools/tool-schema.js";
import type { Tool } from "../tools/types.js";

/** A server's (or client's) name and version, as the MCP handshake reports it. */
export interface Implementation {
  name: string;
  version: string;
  title?: string;
  [key: string]: unknown;
}

/** What a server says about one of its tools; Goat reads `readOnlyHint` and `openWorldHint`. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  [key: string]: unknown;
}

/** One item of an MCP tool result's `content`. */
export type McpContentItem =
  | { type: "text"; text: string; [key: string]: unknown }
  | { type: "image"; data: string; mimeType: string; [key: string]: unknown }
  | { type: "audio"; data: string; mimeType: string; [key: string]: unknown }
  | {
      type: "resource";
      /** Text contents carry `text`; binary contents carry `blob` (base64). */
      resource: { uri: string; mimeType?: string; text?: string; blob?: string; [key: string]: unknown };
      [key: string]: unknown;
    }
  | {
      type: "resource_link";
      uri: string;
      name: string;
      description?: string;
      mimeType?: string;
      [key: string]: unknown;
    };

/** The answer to an MCP `tools/call`: what a `tool()` handler returns. */
export interface CallToolResult {
  content: McpContentItem[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

/**
 * An MCP client transport (the MCP SDK's `Transport`), for servers reached through a transport Goat
 * is handed (`McpTransportServerInstance`).
 */
export interface McpTransport {
  start(): Promise<void>;
  send(message: any, options?: any): Promise<void>;
  close(): Promise<void>;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: any, extra?: any) => void;
  sessionId?: string;
}

/** Settings every kind of server accepts. */
export interface McpServerLimits {
  /**
   * How long one of this server's tool calls may run before it is stopped (its signal aborted, the
   * call cancelled) and answered with a time-limit error. Default: the session's `toolTimeoutMs`.
   */
  toolTimeoutMs?: number;
}

/** A server run as a child process speaking JSON-RPC on its stdin and stdout. */
export interface McpStdioServerConfig extends McpServerLimits {
  type?: "stdio";
  command: string;
  args?: string[];
  /** Added to (not replacing) the parent's environment. */
  env?: Record<string, string>;
}

/** A server reached over Streamable HTTP. */
export interface McpHttpServerConfig extends McpServerLimits {
  type: "http";
  url: string;
  headers?: Record<string, string>;
}

/** A server reached over the older HTTP+SSE transport. */
export interface McpSSEServerConfig extends McpServerLimits {
  type: "sse";
  url: string;
  headers?: Record<string, string>;
}

/**
 * A tool of an in-process server, written with `tool()` exactly as for the Claude Agent SDK: a raw
 * shape of zod fields (or of any Standard Schema) and a handler.
 */
export interface SdkMcpToolDefinition<Shape extends StandardShape = StandardShape> {
  name: string;
  description: string;
  inputSchema: Shape;
  annotations?: ToolAnnotations;
  handler: (args: InferShape<Shape>, extra: unknown) => Promise<CallToolResult>;
}

/**
 * What `createSdkMcpServer` makes. Unlike the Claude Agent SDK, `instance` is a recipe, not a live
 * `McpServer`: each manager builds its own server from it, so two sessions sharing one config never
 * share a connection. A live `McpServer` built by the caller is accepted too.
 */
export interface SdkMcpServerInstance {
  readonly kind: "goat-sdk-mcp-server";
  readonly name: string;
  readonly version: string;
  readonly tools: ReadonlyArray<SdkMcpToolDefinition<any> | Tool>;
}

/**
 * A server that lives elsewhere but is reached through a transport made on each connect: the CLI uses
 * it for servers that run inside the Claude Agent SDK's host process (JSON-RPC over the control channel).
 */
export interface McpTransportServerInstance {
  readonly kind: "goat-mcp-transport";
  /** A fresh MCP client transport (the MCP SDK's `Transport`) for one connection. */
  createTransport(): McpTransport;
}

/** An in-process server, made with `createSdkMcpServer`. */
export interface McpSdkServerConfigWithInstance extends McpServerLimits {
  type: "sdk";
  name: string;
  /**
   * A `SdkMcpServerInstance`, an `McpServer` from `@modelcontextprotocol/sdk/server/mcp.js`, or an
   * `McpTransportServerInstance`.
   */
  instance: SdkMcpServerInstance | McpTransportServerInstance | object;
}

/** Any server configuration accepted in `mcpServers`. */
export type McpServerConfig =
  | McpStdioServerConfig
  | McpHttpServerConfig
  | McpSSEServerConfig
  | McpSdkServerConfigWithInstance;

/** One server's state, as `mcpServerStatus()` and `system/init` report it. */
export interface McpServerStatus {
  name: string;
  status: "connected" | "failed" | "pending" | "disabled";
  error?: string;
  serverInfo?: Implementation;
  tools?: Array<{ name: string; description?: string; annotations?: ToolAnnotations }>;
}

/** What `setServers` changed. `errors` holds the servers that were added but failed to connect. */
export interface McpSetServersResult {
  added: string[];
  removed: string[];
  errors: Record<string, string>;
}

/** One resource a server lists, with the server's name (Claude Code's `ListMcpResourcesTool` item). */
export interface McpResource {
  server: string;
  uri: string;
  name: string;
  mimeType?: string;
  description?: string;
}

/** A server's answer to `resources/read`: text items, or base64 `blob`s for binary ones. */
export interface McpResourceContents {
  contents: Array<{
    uri: string;
    mimeType?: string;
    text?: string;
    blob?: string;
    _meta?: Record<string, unknown>;
  }>;
}

/** Options of `createMcpManager`. */
export interface McpManagerOptions {
  servers: Record<string, McpServerConfig>;
  /** Working directory of stdio servers. */
  cwd: string;
  /** Aborting it closes every server, as `close()` does. */
  signal?: AbortSignal;
  /** Called after any server's status changes (connected, failed, removed, tools changed). */
  onStatusChange?: (status: McpServerStatus[]) => void;
  /** How long a server gets to start and list its tools before it is marked failed. Default 30 s. */
  connectTimeoutMs?: number;
  /** Upper bound on one tool call. Default about 27 hours (like Claude Code: effectively none). */
  toolTimeoutMs?: number;
  /** The environment stdio servers start from (their config's `env` is added); default `process.env`. */
  env?: Record<string, string | undefined>;
}

/** The MCP servers of one session and the tools they provide. */
export interface McpManager {
  /** Resolves once every pending server has connected or failed, or after `timeoutMs`. Never rejects. */
  ready(timeoutMs?: number): Promise<void>;
  /** The tools of the connected servers now, named `mcp__<server>__<tool>`. */
  tools(): Tool[];
  /** Every configured server's status, in configuration order. */
  status(): McpServerStatus[];
  /** Replaces the set of servers: adds new ones, removes missing ones, reconnects changed ones. */
  setServers(servers: Record<string, McpServerConfig>): Promise<McpSetServersResult>;
  /** Closes one server and reconnects it with the same configuration. */
  reconnect(name: string): Promise<void>;
  /** Disables (closes, status `disabled`) or re-enables a server. */
  toggle(name: string, enabled: boolean): Promise<void>;
  /**
   * The resources of the connected servers that offer them, or of server `server` alone (which must be
   * connected). Rejects naming the server for an unknown one or one that has no resources.
   */
  listResources(server?: string, signal?: AbortSignal): Promise<McpResource[]>;
  /** Reads resource `uri` of server `server`; rejects with the reason (unknown server, its error). */
  readResource(server: string, uri: string, signal?: AbortSignal): Promise<McpResourceContents>;
  /** Closes every server; stdio servers' process groups are killed. Idempotent. */
  close(): Promise<void>;
}
