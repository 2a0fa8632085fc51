/**
 * The MCP servers of a durable session, run by the worker that runs the session. The runtime's own
 * MCP tools are created inside `query()`, out of reach of the durable wrappers, so the workflow
 * connects the servers itself (the same manager, `mcp/manager.ts`), takes their tools once they are
 * up, and hands them to `query()` as Goat tools wrapped like any other (`durable-tools.ts`): each call
 * is a step, so a finished call is not made again after a takeover, and a call cut by a crash is
 * answered "interrupted" unless its tool is read-only (then it is simply made again).
 *
 * The servers start again on the worker that takes a session over (they are processes or
 * connections of the worker, not state of the session). The tools are taken once, at the start, so
 * the model is offered the same tools on every replay; a server that does not come up is left out.
 */
import type { McpServerConfig } from "../mcp/types.js";
import type { Tool } from "../tools/types.js";

/** Longest wait for a durable session's MCP servers to connect (default of `mcpStartupTimeoutMs`). */
const DEFAULT_STARTUP_MS = 30_000;

/** A session's connected MCP servers. */
export interface SessionMcp {
  /** Their tools (`mcp__<server>__<tool>`), unwrapped. */
  tools: Tool[];
  /** Closes every server (stdio process groups killed). */
  close(): Promise<void>;
}

/** Connects `servers` in parallel and waits for them, at most `startupMs`. */
export async function startSessionMcp(
  servers: Record<string, McpServerConfig> | undefined,
  options: { cwd: string; env?: Record<string, string | undefined>; startupMs?: number },
): Promise<SessionMcp | undefined> {
  if (servers === undefined || Object.keys(servers).length === 0) return undefined;
  // Loaded only when a session has servers, as the runtime does.
  const { createMcpManager } = await import("../mcp/manager.js");
  const manager = createMcpManager({
    servers,
    cwd: options.cwd,
    ...(options.env ? { env: options.env } : {}),
  });
  await manager.ready(options.startupMs ?? DEFAULT_STARTUP_MS);
  return { tools: manager.tools(), close: () => manager.close() };
}
