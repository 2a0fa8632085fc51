/**
 * MCP servers that run inside the Claude Agent SDK's host process (`createSdkMcpServer`), reached over
 * the stream-json control channel: Goat is the MCP client, and each JSON-RPC message travels as a
 * `control_request {subtype: "mcp_message", server_name, message}` whose `control_response` carries
 * `{mcp_response}`. Messages the server sends on its own (a tool list change, say) come the other way
 * as `mcp_message` requests from the host.
 *
 * The TypeScript SDK does the MCP handshake with its servers itself before `initialize` and sends the
 * results as manifests; a transport given one answers `initialize` and the first `tools/list` locally,
 * so only tool calls cross the channel (as with Claude Code). Types only from the MCP SDK: nothing here
 * loads it.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { McpSdkServerConfigWithInstance } from "../../index.js";
import type { McpTransportServerInstance } from "../../mcp/index.js";
import { type ControlChannel, errorText, isRecord } from "./control-protocol.js";

/** What the SDK captured from one of its servers: the answers to `initialize` and `tools/list`. */
export interface HostMcpManifest {
  initializeResult: Record<string, unknown>;
  toolsListResult?: Record<string, unknown>;
}

/** The host's in-process servers of one session, by name. */
export interface HostMcpServers {
  /**
   * The `mcpServers` entry for the host's server `name` (a manifest saves the handshake's round trips;
   * the first call's is kept). The same object for the same name.
   */
  config(name: string, manifest?: HostMcpManifest): McpSdkServerConfigWithInstance;
  /**
   * Hands a message the host's server sent on its own to that server's live connection. Throws when no
   * connection to `serverName` is open (the host gets an error answer).
   */
  deliver(serverName: string, message: unknown): void;
}

/** JSON-RPC "internal error": the host could not carry or answer the request. */
const INTERNAL_ERROR = -32603;

/** Creates the registry of host servers that talk over `channel`. */
export function createHostMcpServers(channel: ControlChannel): HostMcpServers {
  const live = new Map<string, ControlMcpTransport>();
  // One config per server: the same server named again (mcp_set_servers) is unchanged, not replaced.
  const configs = new Map<string, McpSdkServerConfigWithInstance>();
  return {
    config(name, manifest) {
      const known = configs.get(name);
      if (known) return known;
      const instance: McpTransportServerInstance = {
        kind: "goat-mcp-transport",
        createTransport() {
          const transport = new ControlMcpTransport(channel, name, manifest, () => {
            if (live.get(name) === transport) live.delete(name);
          });
          live.set(name, transport);
          return transport;
        },
      };
      const config: McpSdkServerConfigWithInstance = { type: "sdk", name, instance };
      configs.set(name, config);
      return config;
    },
    deliver(serverName, message) {
      const transport = live.get(serverName);
      if (!transport) throw new Error(`SDK MCP server not connected: ${serverName}`);
      if (!isJsonRpc(message)) throw new Error('mcp_message: "message" must be a JSON-RPC object');
      transport.receive(message);
    },
  };
}

/** One connection's transport: requests out as control requests, answers and notifications in. */
class ControlMcpTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private closed = false;
  /** Aborts the control requests still waiting when the connection closes. */
  private readonly stop = new AbortController();
  /** The manifest's `tools/list` answers one listing only; later ones (after a change) go to the host. */
  private manifestToolsUnused: boolean;

  constructor(
    private readonly channel: ControlChannel,
    private readonly serverName: string,
    private readonly manifest: HostMcpManifest | undefined,
    private readonly onClosed: () => void,
  ) {
    this.manifestToolsUnused = manifest?.toolsListResult !== undefined;
  }

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error(`the connection to SDK MCP server ${this.serverName} is closed`);
    const request = "method" in message && "id" in message ? message : undefined;
    if (this.answerFromManifest(message)) return;
    const pending = this.channel.request(
      { subtype: "mcp_message", server_name: this.serverName, message },
      this.stop.signal,
    );
    if (!request) {
      // Notifications and our answers to the server: the host acknowledges them with a dummy reply.
      pending.catch(() => {});
      return;
    }
    pending.then(
      (answer) => this.receive(toResponse(request.id, answer.mcp_response)),
      (error) => {
        if (this.closed) return;
        this.receive({
          jsonrpc: "2.0",
          id: request.id,
          error: { code: INTERNAL_ERROR, message: `the SDK host did not answer: ${errorText(error)}` },
        });
      },
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stop.abort();
    this.onClosed();
    this.onclose?.();
  }

  /** Delivers a message to the client, unless the connection is closed. */
  receive(message: JSONRPCMessage): void {
    if (!this.closed) this.onmessage?.(message);
  }

  /** The handshake the SDK already did: answers it locally, so only tool calls cross the channel. */
  private answerFromManifest(message: JSONRPCMessage): boolean {
    const manifest = this.manifest;
    if (!manifest || !("method" in message)) return false;
    if (message.method === "notifications/initialized") return true;
    if (!("id" in message)) return false;
    if (message.method === "initialize") {
      queueMicrotask(() =>
        this.receive({ jsonrpc: "2.0", id: message.id, result: manifest.initializeResult }),
      );
      return true;
    }
    const cursor = isRecord(message.params) ? message.params.cursor : undefined;
    if (message.method === "tools/list" && this.manifestToolsUnused && cursor === undefined) {
      this.manifestToolsUnused = false;
      const result = manifest.toolsListResult as Record<string, unknown>;
      queueMicrotask(() => this.receive({ jsonrpc: "2.0", id: message.id, result }));
      return true;
    }
    return false;
  }
}

/**
 * The host's `mcp_response`, checked: a JSON-RPC result or error for our request id. Anything else
 * (hostile or broken hosts) becomes an error answer, so the client's request never hangs.
 */
function toResponse(id: string | number, value: unknown): JSONRPCMessage {
  if (isRecord(value) && isRecord(value.result)) return { jsonrpc: "2.0", id, result: value.result };
  if (isRecord(value) && isRecord(value.error)) {
    const { code, message, data } = value.error;
    return {
      jsonrpc: "2.0",
      id,
      error: {
        code: typeof code === "number" ? code : INTERNAL_ERROR,
        message: typeof message === "string" ? message : "the SDK MCP server answered with an error",
        ...(data !== undefined ? { data } : {}),
      },
    };
  }
  return {
    jsonrpc: "2.0",
    id,
    error: { code: INTERNAL_ERROR, message: "the SDK host's mcp_response was not a JSON-RPC answer" },
  };
}

function isJsonRpc(value: unknown): value is JSONRPCMessage {
  return isRecord(value) && value.jsonrpc === "2.0";
}

/** Reads `initialize.sdkMcpServerManifests[name]` when it has the shape of one. */
export function manifestOf(manifests: unknown, name: string): HostMcpManifest | undefined {
  if (!isRecord(manifests)) return undefined;
  const m = manifests[name];
  if (!isRecord(m) || !isRecord(m.initializeResult)) return undefined;
  return {
    initializeResult: m.initializeResult,
    toolsListResult: isRecord(m.toolsListResult) ? m.toolsListResult : undefined,
  };
}
