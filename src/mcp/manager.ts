/**
 * The MCP servers of one session: connects them in parallel, tracks each one's status, exposes the
 * tools of the connected ones as Goat tools, and closes them (stdio process groups killed) with the
 * session. A server that fails, crashes or hangs is marked `failed`; the session goes on without it.
 * The MCP SDK (an optional peer) is loaded on the first connect of a server that needs it, so programs
 * without such servers never load it, and `createSdkMcpServer` servers work without it.
 */
import { GoatError } from "../errors.js";
import { createResourceTools } from "./resource-tools.js";
import {
  type ConnectContext,
  disconnect,
  entryStatus,
  newServerEntry,
  type ServerEntry,
  startConnect,
} from "./server-entry.js";
import { serverResources } from "./server-resources.js";
import type { McpManager, McpManagerOptions, McpServerConfig, McpSetServersResult } from "./types.js";

const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
const DEFAULT_TOOL_TIMEOUT_MS = 100_000_000;

/** Creates the session's MCP manager and starts connecting every configured server at once. */
export function createMcpManager(options: McpManagerOptions): McpManager {
  const entries = new Map<string, ServerEntry>();
  const closer = new AbortController();
  let closed = false;
  const status = () => [...entries.values()].map(entryStatus);
  const notify = () => options.onStatusChange?.(status());
  const connect: ConnectContext = {
    cwd: options.cwd,
    env: options.env,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    toolTimeoutMs: options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    signal: closer.signal,
    isClosed: () => closed,
    notify,
  };

  function addEntry(name: string, config: McpServerConfig): ServerEntry {
    const entry = newServerEntry(name, config);
    entries.set(name, entry);
    startConnect(entry, connect);
    return entry;
  }

  async function reconnect(name: string): Promise<void> {
    const entry = requireEntry(entries, closed, name);
    await disconnect(entry);
    startConnect(entry, connect);
    notify();
    await entry.settled;
  }

  async function toggle(name: string, enabled: boolean): Promise<void> {
    const entry = requireEntry(entries, closed, name);
    if (!enabled) {
      await disconnect(entry);
      entry.status = "disabled";
      entry.error = undefined;
      notify();
      return;
    }
    if (entry.status === "disabled" || entry.status === "failed") await reconnect(name);
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    closer.abort();
    options.signal?.removeEventListener("abort", onSignal);
    // An attempt still in flight closes its own connection once it sees the generation moved on.
    await Promise.allSettled([...entries.values()].map((e) => disconnect(e).then(() => e.settled)));
  }

  const onSignal = () => void close();
  if (options.signal?.aborted) closed = true;
  else options.signal?.addEventListener("abort", onSignal, { once: true });

  if (!closed) for (const [name, config] of Object.entries(options.servers)) addEntry(name, config);

  const resources = serverResources(entries, closer.signal);
  // The resource tools, once for the manager: offered while a connected server has resources.
  const resourceTools = createResourceTools(resources);
  return {
    ready: (timeoutMs) => settled(entries, timeoutMs),
    tools: () => {
      const tools = [...entries.values()].filter((e) => e.status === "connected").flatMap((e) => e.tools);
      return resources.offered() ? [...tools, ...resourceTools] : tools;
    },
    status,
    listResources: resources.listResources,
    readResource: resources.readResource,
    setServers: async (servers) => {
      if (closed) throw closedError();
      return replaceServers(entries, servers, addEntry, notify);
    },
    reconnect,
    toggle,
    close,
  };
}

const closedError = () => new GoatError("the MCP manager is closed", { code: "mcp_closed" });

/** The entry of a server named by the caller; a closed manager or an unknown name is an error. */
function requireEntry(entries: Map<string, ServerEntry>, closed: boolean, name: string): ServerEntry {
  if (closed) throw closedError();
  const entry = entries.get(name);
  if (!entry) throw new GoatError(`no MCP server named "${name}"`, { code: "unknown_mcp_server" });
  return entry;
}

/** Resolves once every entry's attempt has settled, or after `timeoutMs` when given. */
async function settled(entries: Map<string, ServerEntry>, timeoutMs?: number): Promise<void> {
  const all = Promise.all([...entries.values()].map((e) => e.settled));
  if (timeoutMs === undefined) return void (await all);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, timeoutMs));
  });
  await Promise.race([all, timeout]);
  clearTimeout(timer);
}

/**
 * Makes the servers those of `servers`: removes (disconnecting) the entries it lacks or configures
 * differently, adds the new ones, and waits for the added ones to connect or fail.
 */
async function replaceServers(
  entries: Map<string, ServerEntry>,
  servers: Record<string, McpServerConfig>,
  addEntry: (name: string, config: McpServerConfig) => ServerEntry,
  notify: () => void,
): Promise<McpSetServersResult> {
  const removed: string[] = [];
  const added: ServerEntry[] = [];
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

/** Whether two configs describe the same server (an in-process server's instance by identity). */
function sameConfig(a: McpServerConfig, b: McpServerConfig): boolean {
  if (a.type === "sdk" || b.type === "sdk")
    return (
      a.type === b.type && (a as { instance: unknown }).instance === (b as { instance: unknown }).instance
    );
  return JSON.stringify(a) === JSON.stringify(b);
}
