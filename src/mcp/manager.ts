/**
 * The MCP servers of one session: connects them in parallel, tracks each one's status, exposes the
 * tools of the connected ones as Goat tools, and closes them (stdio process groups killed) with the
 * session. A server that fails, crashes or hangs is marked `failed`; the session goes on without it.
 * The MCP SDK (an optional peer) is loaded on the first connect of a server that needs it, so programs
 * without such servers never load it, and `createSdkMcpServer` servers work without it.
 */
import { GoatError } from "../errors.js";
import type { Tool } from "../tools/types.js";
import type { McpConnection } from "./connection.js";
import { createResourceTools } from "./resource-tools.js";
import { adaptMcpTool, type McpToolInfo, mcpToolName } from "./tool-adapter.js";
import type {
  McpManager,
  McpManagerOptions,
  McpResource,
  McpResourceContents,
  McpServerConfig,
  McpServerStatus,
  McpSetServersResult,
} from "./types.js";

const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
const DEFAULT_TOOL_TIMEOUT_MS = 100_000_000;

interface Entry {
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

/** Creates the session's MCP manager and starts connecting every configured server at once. */
export function createMcpManager(options: McpManagerOptions): McpManager {
  const entries = new Map<string, Entry>();
  const closer = new AbortController();
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const toolTimeoutMs = options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  let closed = false;

  const notify = () => options.onStatusChange?.(status());

  function status(): McpServerStatus[] {
    return [...entries.values()].map((e) => {
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
    });
  }

  function buildTools(entry: Entry, infos: McpToolInfo[]): Tool[] {
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

  function startConnect(entry: Entry): void {
    const generation = ++entry.generation;
    entry.status = "pending";
    entry.error = undefined;
    entry.settled = (async () => {
      try {
        const { connectMcpServer } = await import("./connect.js");
        const conn = await connectMcpServer(entry.config, {
          cwd: options.cwd,
          timeoutMs: connectTimeoutMs,
          toolTimeoutMs,
          env: options.env,
          signal: closer.signal,
          onLost: (reason) => {
            if (entry.generation !== generation || entry.status !== "connected") return;
            entry.status = "failed";
            entry.error = `disconnected: ${reason}`;
            entry.tools = [];
            notify();
            void conn.close();
          },
          onToolsChanged: (infos) => {
            if (entry.generation !== generation || entry.status !== "connected") return;
            entry.infos = infos;
            entry.tools = buildTools(entry, infos);
            notify();
          },
        });
        if (entry.generation !== generation || closed) {
          await conn.close();
          return;
        }
        entry.conn = conn;
        entry.infos = conn.tools;
        entry.tools = buildTools(entry, conn.tools);
        entry.status = "connected";
      } catch (err) {
        if (entry.generation !== generation) return;
        entry.status = "failed";
        entry.error = err instanceof Error ? err.message : String(err);
      }
      notify();
    })();
  }

  function addEntry(name: string, config: McpServerConfig): Entry {
    const entry: Entry = {
      name,
      config,
      status: "pending",
      tools: [],
      infos: [],
      settled: Promise.resolve(),
      generation: 0,
    };
    entries.set(name, entry);
    startConnect(entry);
    return entry;
  }

  async function disconnect(entry: Entry): Promise<void> {
    entry.generation++;
    const conn = entry.conn;
    entry.conn = undefined;
    entry.tools = [];
    entry.infos = [];
    await conn?.close();
  }

  async function ready(timeoutMs?: number): Promise<void> {
    const all = Promise.all([...entries.values()].map((e) => e.settled));
    if (timeoutMs === undefined) return void (await all);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, timeoutMs));
    });
    await Promise.race([all, timeout]);
    clearTimeout(timer);
  }

  async function setServers(servers: Record<string, McpServerConfig>): Promise<McpSetServersResult> {
    if (closed) throw new GoatError("the MCP manager is closed", { code: "mcp_closed" });
    const removed: string[] = [];
    const added: Entry[] = [];
    for (const [name, entry] of [...entries]) {
      if (name in servers && sameConfig(entry.config, servers[name])) continue;
      entries.delete(name);
      removed.push(name);
      await disconnect(entry);
    }
    for (const [name, config] of Object.entries(servers)) {
      if (!entries.has(name)) added.push(addEntry(name, config));
    }
    if (removed.length > 0 || added.length > 0) notify();
    await Promise.all(added.map((e) => e.settled));
    const errors: Record<string, string> = {};
    for (const e of added) if (e.status === "failed") errors[e.name] = e.error ?? "failed";
    // A changed config is both removed and added, as the Claude Agent SDK reports it.
    return { added: added.map((e) => e.name), removed, errors };
  }

  async function reconnect(name: string): Promise<void> {
    const entry = requireEntry(name);
    await disconnect(entry);
    startConnect(entry);
    notify();
    await entry.settled;
  }

  async function toggle(name: string, enabled: boolean): Promise<void> {
    const entry = requireEntry(name);
    if (!enabled) {
      await disconnect(entry);
      entry.status = "disabled";
      entry.error = undefined;
      notify();
      return;
    }
    if (entry.status === "disabled" || entry.status === "failed") await reconnect(name);
  }

  /** A connected server that offers resources, or an error saying which of those it is not. */
  function resourceServer(name: string): McpConnection {
    const entry = entries.get(name);
    const offering = [...entries.values()].filter((e) => e.conn?.resources && e.status === "connected");
    const known = offering.length > 0 ? offering.map((e) => e.name).join(", ") : "none";
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
    const names =
      server !== undefined
        ? [server]
        : [...entries.values()]
            .filter((e) => e.conn?.resources && e.status === "connected")
            .map((e) => e.name);
    const lists = await Promise.all(
      names.map(async (name) => {
        const items = await resourceServer(name).listResources(signal ?? closer.signal);
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
    const result = await resourceServer(server).readResource(uri, signal ?? closer.signal);
    return { contents: result.contents as McpResourceContents["contents"] };
  }

  // The resource tools, once for the manager: offered while a connected server has resources.
  const resourceTools = createResourceTools({ listResources, readResource });
  const offersResources = () =>
    [...entries.values()].some((e) => e.status === "connected" && e.conn?.resources === true);

  function requireEntry(name: string): Entry {
    if (closed) throw new GoatError("the MCP manager is closed", { code: "mcp_closed" });
    const entry = entries.get(name);
    if (!entry) throw new GoatError(`no MCP server named "${name}"`, { code: "unknown_mcp_server" });
    return entry;
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    closer.abort();
    options.signal?.removeEventListener("abort", onSignal);
    const all = [...entries.values()];
    await Promise.allSettled(
      all.map(async (e) => {
        await disconnect(e);
        // An attempt still in flight closes its own connection once it sees the generation moved on.
        await e.settled;
      }),
    );
  }

  const onSignal = () => void close();
  if (options.signal?.aborted) closed = true;
  else options.signal?.addEventListener("abort", onSignal, { once: true });

  if (!closed) for (const [name, config] of Object.entries(options.servers)) addEntry(name, config);

  return {
    ready,
    tools: () => {
      const tools = [...entries.values()].filter((e) => e.status === "connected").flatMap((e) => e.tools);
      return offersResources() ? [...tools, ...resourceTools] : tools;
    },
    status,
    listResources,
    readResource,
    setServers,
    reconnect,
    toggle,
    close,
  };
}

/** Whether two configs describe the same server (an in-process server's instance by identity). */
function sameConfig(a: McpServerConfig, b: McpServerConfig): boolean {
  if (a.type === "sdk" || b.type === "sdk")
    return (
      a.type === b.type && (a as { instance: unknown }).instance === (b as { instance: unknown }).instance
    );
  return JSON.stringify(a) === JSON.stringify(b);
}
