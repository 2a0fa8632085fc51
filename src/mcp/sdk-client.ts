/**
 * Connects to one MCP server through `@modelcontextprotocol/sdk` (stdio, Streamable HTTP, SSE, a live
 * `McpServer` built by the caller, or a host's server reached over a transport), within a time limit
 * and an abort signal, and lists its tools. Loaded lazily by `connect.ts`: this is the file that
 * imports the MCP SDK, so a program that uses no such server never loads it.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ConnectOptions, McpConnection, McpListedResource } from "./connection.js";
import type { GroupStdioTransport } from "./stdio-transport.js";
import type { McpToolInfo } from "./tool-adapter.js";
import type {
  CallToolResult,
  McpResourceContents,
  McpServerConfig,
  McpTransportServerInstance,
} from "./types.js";

const CLIENT_INFO = { name: "goat", version: "0.1.0" };

/** Connects to a server and lists its tools; rejects with a readable reason on failure or timeout. */
export async function connectWithMcpSdk(
  config: McpServerConfig,
  opts: ConnectOptions,
): Promise<McpConnection> {
  const { transport, stdio, closeExtra } = await openTransport(config, opts);
  let established = false;
  let closing = false;
  const client = new Client(CLIENT_INFO, {
    capabilities: {},
    listChanged: {
      tools: {
        debounceMs: 50,
        onChanged: (err, tools) => {
          if (!err && tools) opts.onToolsChanged(tools as McpToolInfo[]);
        },
      },
    },
  });
  const closeAll = async () => {
    closing = true;
    await Promise.allSettled([client.close(), closeExtra(), stdio?.close()]);
  };
  client.onclose = () => {
    if (established && !closing) opts.onLost(describeLoss(stdio));
  };

  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), opts.timeoutMs);
  const onAbort = () => deadline.abort();
  opts.signal.addEventListener("abort", onAbort, { once: true });
  try {
    const work = (async () => {
      const requestOpts = { signal: deadline.signal, timeout: opts.timeoutMs };
      await client.connect(transport, requestOpts);
      return client.getServerCapabilities()?.tools ? listAllTools(client, requestOpts) : [];
    })();
    // Some transports' start() takes no signal (SSE waits for its endpoint event): race them.
    const stopped = new Promise<never>((_, reject) => {
      deadline.signal.addEventListener("abort", () => reject(new Error("stopped")), { once: true });
    });
    work.catch(() => {});
    const tools = await Promise.race([work, stopped]);
    established = true;
    return sdkConnection(client, tools, stdio, opts.toolTimeoutMs, closeAll);
  } catch (err) {
    await closeAll();
    if (opts.signal.aborted) throw new Error("connection cancelled: the session is closing");
    if (deadline.signal.aborted)
      throw new Error(`timed out after ${opts.timeoutMs} ms waiting for the server to start`);
    throw new Error(describeFailure(err, stdio));
  } finally {
    clearTimeout(timer);
    opts.signal.removeEventListener("abort", onAbort);
  }
}

/** The client's transport for a config, with the stdio process (if any) and what else closes with it. */
async function openTransport(
  config: McpServerConfig,
  opts: ConnectOptions,
): Promise<{ transport: Transport; stdio?: GroupStdioTransport; closeExtra: () => Promise<void> }> {
  const none = async () => {};
  if (config.type === "sdk") {
    const link = await linkSdkServer(config.instance);
    return { transport: link.transport, closeExtra: link.close };
  }
  if (config.type === "http" || config.type === "sse")
    return { transport: await httpTransport(config.type, config.url, config.headers), closeExtra: none };
  if (config.type === undefined || config.type === "stdio") {
    const { createStdioTransport } = await import("./stdio-transport.js");
    const stdio = createStdioTransport({
      command: config.command,
      args: config.args,
      env: config.env,
      cwd: opts.cwd,
      baseEnv: opts.env,
    });
    return { transport: stdio, stdio, closeExtra: none };
  }
  throw new Error(`unknown MCP server type "${(config as { type: string }).type}"`);
}

/** Every page of the server's tool list. */
async function listAllTools(
  client: Client,
  requestOpts: { signal: AbortSignal; timeout: number },
): Promise<McpToolInfo[]> {
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, requestOpts);
    tools.push(...(page.tools as McpToolInfo[]));
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

/** The established connection: the server's tools and resources through `client`. */
function sdkConnection(
  client: Client,
  tools: McpToolInfo[],
  stdio: GroupStdioTransport | undefined,
  requestTimeout: number,
  close: () => Promise<void>,
): McpConnection {
  return {
    serverInfo: client.getServerVersion(),
    tools,
    pid: stdio?.pid,
    resources: client.getServerCapabilities()?.resources !== undefined,
    async listResources(signal) {
      const all: McpListedResource[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listResources(cursor ? { cursor } : undefined, {
          signal,
          timeout: requestTimeout,
        });
        all.push(...page.resources);
        cursor = page.nextCursor;
      } while (cursor);
      return all;
    },
    readResource: async (uri, signal) => {
      const result = await client.readResource({ uri }, { signal, timeout: requestTimeout });
      return { contents: result.contents as McpResourceContents["contents"] };
    },
    call: (toolName, args, ctx, onProgress) =>
      client.callTool({ name: toolName, arguments: args }, undefined, {
        signal: ctx.signal,
        timeout: requestTimeout,
        resetTimeoutOnProgress: true,
        onprogress: (p) => {
          if (p.message) onProgress(p.message);
        },
      }) as Promise<CallToolResult>,
    close,
  };
}

/**
 * The client end for a `type: "sdk"` server that is not a `createSdkMcpServer` recipe: a transport
 * made by its instance (the host's server, over the control channel), or a live `McpServer` the
 * caller built, linked through the SDK's in-memory transport pair.
 */
async function linkSdkServer(instance: unknown): Promise<{ transport: Transport; close(): Promise<void> }> {
  if ((instance as McpTransportServerInstance | undefined)?.kind === "goat-mcp-transport") {
    // The server runs elsewhere (the SDK host's process); closing the client closes the transport.
    const transport = (instance as McpTransportServerInstance).createTransport() as Transport;
    return { transport, close: async () => {} };
  }
  const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
  if (!(instance instanceof McpServer)) {
    throw new Error(`"instance" must come from createSdkMcpServer() or be an McpServer`);
  }
  const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js");
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await instance.connect(serverEnd);
  return { transport: clientEnd, close: () => instance.close() };
}

async function httpTransport(
  type: "http" | "sse",
  url: string,
  headers: Record<string, string> | undefined,
): Promise<Transport> {
  const parsed = new URL(url);
  const requestInit = headers ? { headers } : undefined;
  if (type === "http") {
    const { StreamableHTTPClientTransport } = await import(
      "@modelcontextprotocol/sdk/client/streamableHttp.js"
    );
    return new StreamableHTTPClientTransport(parsed, { requestInit });
  }
  const { SSEClientTransport } = await import("@modelcontextprotocol/sdk/client/sse.js");
  // The event stream's GET goes through EventSource, which takes headers only through its fetch.
  const eventSourceInit = headers
    ? {
        fetch: (u: string | URL, init?: RequestInit) =>
          fetch(u, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }),
      }
    : undefined;
  return new SSEClientTransport(parsed, { requestInit, eventSourceInit });
}

/** Why a server could not start: the error and its cause, a stdio server's exit status and stderr. */
function describeFailure(err: unknown, stdio: GroupStdioTransport | undefined): string {
  let message = err instanceof Error ? err.message : String(err);
  // fetch() says only "fetch failed"; the reason (ECONNREFUSED, a TLS error) is in its cause.
  const cause =
    err instanceof Error ? (err.cause as { message?: string; code?: string } | undefined) : undefined;
  if (cause && (cause.message || cause.code)) message += ` (${cause.message || cause.code})`;
  if (!stdio) return message;
  const exit = stdio.exitDescription();
  const stderr = stdio.stderrTail();
  const parts = [
    !exit ? message : `the server ${exit}${exit.startsWith("could not") ? "" : " before it was ready"}`,
  ];
  if (stderr) parts.push(`stderr: ${stderr}`);
  return parts.join("; ");
}

function describeLoss(stdio: GroupStdioTransport | undefined): string {
  if (!stdio) return "the connection to the server was lost";
  const exit = stdio.exitDescription() ?? "closed its output";
  const stderr = stdio.stderrTail();
  return `the server ${exit}${stderr ? `; stderr: ${stderr}` : ""}`;
}
