/**
 * The resources of the manager's connected servers (MCP `resources/list` and `resources/read`), for
 * the manager's `listResources`/`readResource` and the resource tools the model is offered.
 */
import { GoatError } from "../errors.js";
import type { McpConnection } from "./connection.js";
import type { ServerEntry } from "./server-entry.js";
import type { McpResource, McpResourceContents } from "./types.js";

/** Resource access over the manager's entries. */
export interface ServerResources {
  listResources(server?: string, signal?: AbortSignal): Promise<McpResource[]>;
  readResource(server: string, uri: string, signal?: AbortSignal): Promise<McpResourceContents>;
  /** Whether a connected server offers resources (the resource tools are offered only then). */
  offered(): boolean;
}

/** Resources over `entries`; a call without a signal is aborted by `closeSignal` (the manager's close). */
export function serverResources(
  entries: Map<string, ServerEntry>,
  closeSignal: AbortSignal,
): ServerResources {
  const offering = () => [...entries.values()].filter((e) => e.conn?.resources && e.status === "connected");

  /** A connected server that offers resources, or an error saying which of those it is not. */
  function resourceServer(name: string): McpConnection {
    const entry = entries.get(name);
    const withResources = offering();
    const known = withResources.length > 0 ? withResources.map((e) => e.name).join(", ") : "none";
    if (!entry) {
      throw new GoatError(`no MCP server named "${name}" (servers with resources: ${known})`, {
        code: "unknown_mcp_server",
      });
    }
    if (entry.status !== "connected" || !entry.conn) {
      throw new GoatError(`MCP server "${name}" is not connected (${entry.error ?? entry.status})`, {
        code: "mcp_not_connected",
      });
    }
    if (!entry.conn.resources) {
      throw new GoatError(`MCP server "${name}" offers no resources (servers with resources: ${known})`, {
        code: "mcp_no_resources",
      });
    }
    return entry.conn;
  }

  async function listResources(server?: string, signal?: AbortSignal): Promise<McpResource[]> {
    // One server's list: it must exist and offer resources (resourceServer throws saying which).
    if (server !== undefined) resourceServer(server);
    const names = server !== undefined ? [server] : offering().map((e) => e.name);
    const lists = await Promise.all(
      names.map(async (name) => {
        const items = await resourceServer(name).listResources(signal ?? closeSignal);
        return items.map((r) => ({
          server: name,
          uri: r.uri,
          name: r.name,
          ...(r.mimeType !== undefined ? { mimeType: r.mimeType } : {}),
          ...(r.description !== undefined ? { description: r.description } : {}),
        }));
      }),
    );
    return lists.flat();
  }

  async function readResource(
    server: string,
    uri: string,
    signal?: AbortSignal,
  ): Promise<McpResourceContents> {
    const result = await resourceServer(server).readResource(uri, signal ?? closeSignal);
    return { contents: result.contents as McpResourceContents["contents"] };
  }

  return { listResources, readResource, offered: () => offering().length > 0 };
}
