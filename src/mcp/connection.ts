/**
 * The shape of a live connection to one MCP server, whichever way it was made: in-process
 * (`in-process.ts`) or through the MCP SDK (`sdk-client.ts`). `connect.ts` picks the way; the
 * manager uses only this shape.
 */
import type { ToolContext } from "../tools/types.js";
import type { McpToolInfo } from "./tool-adapter.js";
import type { CallToolResult, Implementation, McpResourceContents } from "./types.js";

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
