/**
 * In-process MCP servers made with `createSdkMcpServer`, connected without the MCP protocol: their
 * tools live in this process, so a call is a function call — the arguments checked against the tool's
 * schema, its handler (or Goat tool) run with the calling session's context, and the answer mapped as
 * an MCP result would be. No JSON-RPC, no in-memory transport, and no `@modelcontextprotocol/sdk`:
 * an SDK-style server works in a program that never installed it. (The Claude Agent SDK runs these
 * servers through the MCP SDK's in-memory transport; to the model and the host the result is the same.)
 */
import { GoatError } from "../errors.js";
import { issuePath, type StandardSchemaV1 } from "../schema/standard-schema.js";
import { runTool } from "../tools/define-tool.js";
import { normalizeInputSchema } from "../tools/tool-schema.js";
import type { SideEffect, Tool, ToolContext, ToolResult } from "../tools/types.js";
import type { McpConnection } from "./connection.js";
import { isGoatTool } from "./sdk-server.js";
import type { McpToolInfo } from "./tool-adapter.js";
import type { CallToolResult, SdkMcpServerInstance, SdkMcpToolDefinition, ToolAnnotations } from "./types.js";

/** One tool of the server, ready to list and to call. */
interface ServedTool {
  info: McpToolInfo;
  call(
    args: Record<string, unknown>,
    ctx: ToolContext,
    onProgress: (message: string) => void,
  ): Promise<CallToolResult>;
}

/**
 * Connects a `createSdkMcpServer` recipe: lists its tools and calls them directly. A tool whose schema
 * cannot be described fails the connection, naming the tool, as a server that cannot start would.
 */
export function connectInProcess(instance: SdkMcpServerInstance): McpConnection {
  const served = new Map<string, ServedTool>();
  for (const def of instance.tools) {
    served.set(def.name, isGoatTool(def) ? serveGoatTool(def) : serveSdkTool(def));
  }
  return {
    serverInfo: { name: instance.name, version: instance.version },
    tools: [...served.values()].map((t) => t.info),
    // createSdkMcpServer takes tools only (as the Claude Agent SDK's does): no resources to offer.
    resources: false,
    listResources: async () => [],
    readResource: async (uri) => {
      throw new GoatError(`MCP server "${instance.name}" offers no resources (asked for ${uri})`, {
        code: "mcp_no_resources",
      });
    },
    call: async (toolName, args, ctx, onProgress) => {
      const tool = served.get(toolName);
      if (!tool) return errorResult(`Tool ${toolName} not found`);
      return tool.call(args, ctx, onProgress);
    },
    close: async () => {},
  };
}

/** A Goat tool (`defineTool`) served as-is: validated and run by `runTool` with the session's context. */
function serveGoatTool(tool: Tool): ServedTool {
  return {
    info: {
      name: tool.name,
      description: tool.description,
      inputSchema: { ...tool.jsonSchema, type: "object" },
      annotations: annotationsFor(tool.sideEffect),
    },
    call: async (args, ctx) => toCallToolResult(await runTool(tool, args, ctx)),
  };
}

/** A `tool()` definition: its raw shape checks the arguments, then the handler answers. */
function serveSdkTool(def: SdkMcpToolDefinition<any>): ServedTool {
  const schema = normalizeInputSchema(def.name, def.inputSchema ?? {});
  return {
    info: {
      name: def.name,
      description: def.description,
      inputSchema: { ...schema.json, type: "object" },
      ...(def.annotations ? { annotations: def.annotations } : {}),
    },
    call: async (args, ctx, onProgress) => {
      const checked = await schema.validator["~standard"].validate(args);
      if (checked.issues) return errorResult(invalidArguments(def.name, checked.issues));
      try {
        const result = await def.handler(checked.value as never, handlerExtra(ctx, onProgress));
        return isCallToolResult(result)
          ? result
          : errorResult(`${def.name} returned no MCP result (content)`);
      } catch (err) {
        return errorResult(`${def.name} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
  };
}

/**
 * The second argument a handler gets, shaped like the MCP SDK's request `extra`: the call's abort
 * signal, ids, and `sendNotification`, whose progress messages reach the session as tool progress.
 */
function handlerExtra(ctx: ToolContext, onProgress: (message: string) => void) {
  return {
    signal: ctx.signal,
    requestId: ctx.toolUseId,
    sessionId: ctx.sessionId,
    _meta: {},
    sendNotification: async (notification: { method?: string; params?: { message?: unknown } }) => {
      const message = notification?.params?.message;
      if (notification?.method === "notifications/progress" && typeof message === "string")
        onProgress(message);
    },
  };
}

/** The MCP SDK's wording for arguments that fail a tool's schema, so the model reads the same. */
function invalidArguments(toolName: string, issues: ReadonlyArray<StandardSchemaV1.Issue>): string {
  const lines = issues.map((issue) => `${issuePath(issue)}: ${issue.message}`);
  return `MCP error -32602: Input validation error: Invalid arguments for tool ${toolName}: ${lines.join("; ")}`;
}

function isCallToolResult(value: unknown): value is CallToolResult {
  return typeof value === "object" && value !== null && Array.isArray((value as CallToolResult).content);
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/** The annotations that make the client side map a Goat tool back to the same side-effect class. */
function annotationsFor(sideEffect: SideEffect): ToolAnnotations {
  if (sideEffect === "none") return { readOnlyHint: true, openWorldHint: false };
  if (sideEffect === "read") return { readOnlyHint: true, openWorldHint: true };
  return { readOnlyHint: false };
}

/** Turns a Goat tool result into an MCP one; `details` travel as structured content. */
function toCallToolResult(result: ToolResult): CallToolResult {
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
