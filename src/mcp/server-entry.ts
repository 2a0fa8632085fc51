/**
 * One configured MCP server inside the manager (manager.ts): its connection, its status, and the Goat
 * tools made from its tool list. A (re)connect bumps the entry's generation, so the late result of an
 * abandoned attempt (a reconnect, a removal, the manager closing) is closed instead of used.
 */
import type { Tool } from "../tools/types.js";
import type { McpConnection } from "./connection.js";
import { adaptMcpTool, type McpToolInfo, mcpToolName } from "./tool-adapter.js";
import type { McpServerConfig, McpServerStatus } from "./types.js";

/** A server's state, as the manager tracks it. */
export interface ServerEntry {
  name: string;
  config: McpServerConfig;
  status: McpServerStatus["status"];
  error?: string;
  conn?: McpConnection;
  tools: Tool[];
  infos: McpToolInfo[];
  /** Settles when this connection attempt has; never rejects. */
  settled: Promise<void>;
  /** Bumped on every (re)connect, so a late result of an abandoned attempt is ignored. */
  generation: number;
}

/** What a connection attempt needs from the manager. */
export interface ConnectContext {
  cwd: string;
  env?: Record<string, string | undefined>;
  connectTimeoutMs: number;
  toolTimeoutMs: number;
  /** Aborted when the manager closes. */
  signal: AbortSignal;
  isClosed(): boolean;
  /** Reports a status change to the manager's listener. */
  notify(): void;
}

/** A new entry, not yet connecting. */
export function newServerEntry(name: string, config: McpServerConfig): ServerEntry {
  return { name, config, status: "pending", tools: [], infos: [], settled: Promise.resolve(), generation: 0 };
}

/** The status the manager reports for an entry. */
export function entryStatus(e: ServerEntry): McpServerStatus {
  const s: McpServerStatus = { name: e.name, status: e.status };
  if (e.error !== undefined) s.error = e.error;
  if (e.conn?.serverInfo && e.status === "connected") s.serverInfo = e.conn.serverInfo;
  if (e.status === "connected") {
    s.tools = e.infos.map((t) => ({
      name: t.name,
      description: t.description,
      annotations: t.annotations,
    }));
  }
  return s;
}

/** Starts a connection attempt; `entry.settled` settles when it has (connected or failed). */
export function startConnect(entry: ServerEntry, ctx: ConnectContext): void {
  const generation = ++entry.generation;
  const current = () => entry.generation === generation;
  entry.status = "pending";
  entry.error = undefined;
  entry.settled = (async () => {
    try {
      const { connectMcpServer } = await import("./connect.js");
      const conn = await connectMcpServer(entry.config, {
        cwd: ctx.cwd,
        timeoutMs: ctx.connectTimeoutMs,
        toolTimeoutMs: ctx.toolTimeoutMs,
        env: ctx.env,
        signal: ctx.signal,
        onLost: (reason) => {
          if (!current() || entry.status !== "connected") return;
          entry.status = "failed";
          entry.error = `disconnected: ${reason}`;
          entry.tools = [];
          ctx.notify();
          void conn.close();
        },
        onToolsChanged: (infos) => {
          if (!current() || entry.status !== "connected") return;
          entry.infos = infos;
          entry.tools = buildTools(entry, infos);
          ctx.notify();
        },
      });
      if (!current() || ctx.isClosed()) {
        await conn.close();
        return;
      }
      entry.conn = conn;
      entry.infos = conn.tools;
      entry.tools = buildTools(entry, conn.tools);
      entry.status = "connected";
    } catch (err) {
      if (!current()) return;
      entry.status = "failed";
      entry.error = err instanceof Error ? err.message : String(err);
    }
    ctx.notify();
  })();
}

/** Closes the entry's connection and abandons any attempt in flight. */
export async function disconnect(entry: ServerEntry): Promise<void> {
  entry.generation++;
  const conn = entry.conn;
  entry.conn = undefined;
  entry.tools = [];
  entry.infos = [];
  await conn?.close();
}

/** The server's tools as Goat tools, each calling through the entry's current connection. */
function buildTools(entry: ServerEntry, infos: McpToolInfo[]): Tool[] {
  const taken = new Set<string>();
  const tools: Tool[] = [];
  for (const info of infos) {
    let name = mcpToolName(entry.name, info.name);
    // Two tool names that sanitise alike ("a.b", "a_b") must not collide.
    for (let i = 2; taken.has(name); i++) name = `${mcpToolName(entry.name, info.name).slice(0, 120)}_${i}`;
    taken.add(name);
    tools.push(
      adaptMcpTool(
        entry.name,
        info,
        name,
        async (toolName, args, ctx, onProgress) => {
          const conn = entry.conn;
          if (!conn || entry.status !== "connected") {
            throw new Error(`MCP server "${entry.name}" is not connected (${entry.error ?? entry.status})`);
          }
          return conn.call(toolName, args, ctx, onProgress);
        },
        entry.config.toolTimeoutMs,
      ),
    );
  }
  return tools;
}
