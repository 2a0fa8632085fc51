/**
 * Builds an in-process MCP server from a `createSdkMcpServer` recipe and links it to a client through
 * the MCP SDK's in-memory transport pair. Loaded lazily by the connector: it imports the MCP SDK.
 */

import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import {
  createToolSessionState,
  type SideEffect,
  type ToolContext,
  type ToolResult,
} from "../tools/types.js";
import { isGoatTool, isSdkServerRecipe } from "./sdk-server.js";
import type { CallToolResult, McpSdkServerConfigWithInstance, McpTransportServerInstance } from "./types.js";

/** The `_meta` key that carries the calling tool_use id, so a Goat tool gets the session's real context. */
export const TOOL_USE_META_KEY = "goat/toolUseId";

/** Finds the context of the tool call with this tool_use id, while it runs. */
export type ContextLookup = (toolUseId: string) => ToolContext | undefined;

/** A started in-process server: the client end of the link and how to stop the server. */
export interface InProcessLink {
  transport: Transport;
  close(): Promise<void>;
}

/** Starts the server of an `sdk` config and returns the client end of its transport pair. */
export async function linkInProcessServer(
  config: McpSdkServerConfigWithInstance,
  cwd: string,
  lookup: ContextLookup,
): Promise<InProcessLink> {
  if (isTransportInstance(config.instance)) {
    // The server runs elsewhere (the SDK host's process); closing the client closes the transport.
    return { transport: config.instance.createTransport(), close: async () => {} };
  }
  const server = buildServer(config, cwd, lookup);
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(serverEnd);
  return { transport: clientEnd, close: () => server.close() };
}

function isTransportInstance(instance: unknown): instance is McpTransportServerInstance {
  return (instance as McpTransportServerInstance | undefined)?.kind === "goat-mcp-transport";
}

function buildServer(config: McpSdkServerConfigWithInstance, cwd: string, lookup: ContextLookup): McpServer {
  const { instance } = config;
  if (!isSdkServerRecipe(instance)) {
    if (instance instanceof McpServer) return instance;
    throw new Error(`"instance" must come from createSdkMcpServer() or be an McpServer`);
  }
  const server = new McpServer({ name: instance.name, version: instance.version });
  // A fallback state for calls that arrive without a known tool_use id; one per server, not global.
  const fallbackState = createToolSessionState();
  for (const def of instance.tools) {
    if (!isGoatTool(def)) {
      server.registerTool(
        def.name,
        { description: def.description, inputSchema: def.inputSchema, annotations: def.annotations },
        def.handler as never,
      );
      continue;
    }
    const goatTool = def;
    server.registerTool(
      goatTool.name,
      {
        description: goatTool.description,
        inputSchema: goatTool.inputSchema as never,
        annotations: annotationsFor(goatTool.sideEffect),
      },
      (async (
        args: unknown,
        extra: { signal: AbortSignal; requestId: string | number; _meta?: Record<string, unknown> },
      ) => {
        const id = extra._meta?.[TOOL_USE_META_KEY];
        const ctx: ToolContext = (typeof id === "string" ? lookup(id) : undefined) ?? {
          signal: extra.signal,
          cwd,
          sessionId: "",
          toolUseId: String(extra.requestId),
          state: fallbackState,
          onUpdate: () => {},
        };
        try {
          return toCallToolResult(await goatTool.execute(args, { ...ctx, signal: extra.signal }));
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          return { content: [{ type: "text", text: `${goatTool.name} failed: ${message}` }], isError: true };
        }
      }) as never,
    );
  }
  return server;
}

/** The annotations that make the client side map a Goat tool back to the same side-effect class. */
function annotationsFor(sideEffect: SideEffect): ToolAnnotations {
  if (sideEffect === "none") return { readOnlyHint: true, openWorldHint: false };
  if (sideEffect === "read") return { readOnlyHint: true, openWorldHint: true };
  return { readOnlyHint: false };
}

/** Turns a Goat tool result into an MCP one; `details` travel as structured content. */
export function toCallToolResult(result: ToolResult): CallToolResult {
  const blocks =
    typeof result.content === "string" ? [{ type: "text" as const, text: result.content }] : result.content;
  const content: CallToolResult["content"] = blocks.map((block) => {
    if (block.type === "text") return { type: "text", text: block.text };
    if (block.source.type === "base64") {
      return { type: "image", data: block.source.data, mimeType: block.source.media_type };
    }
    return { type: "text", text: `[image: ${block.source.url}]` };
  });
  const out: CallToolResult = { content };
  if (result.isError) out.isError = true;
  const details = result.details;
  if (details !== null && typeof details === "object" && !Array.isArray(details)) {
    out.structuredContent = details as Record<string, unknown>;
  }
  return out;
}
