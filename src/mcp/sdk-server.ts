/**
 * `tool()` and `createSdkMcpServer()`, with the Claude Agent SDK's signatures, for MCP servers that run
 * inside the program. Both are plain data, and such a server's tools are called directly (no MCP
 * protocol, no MCP SDK): see `in-process.ts`.
 */
import { InvalidToolError } from "../tools/errors.js";
import type { InferShape, StandardShape } from "../tools/tool-schema.js";
import type { Tool } from "../tools/types.js";
import type {
  CallToolResult,
  McpSdkServerConfigWithInstance,
  SdkMcpServerInstance,
  SdkMcpToolDefinition,
  ToolAnnotations,
} from "./types.js";

/**
 * Defines a tool of an in-process MCP server.
 *
 * @example
 * const add = tool("add", "Adds two numbers", { a: z.number(), b: z.number() },
 *   async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
 *   { annotations: { readOnlyHint: true } });
 */
export function tool<Shape extends StandardShape>(
  name: string,
  description: string,
  inputSchema: Shape,
  handler: (args: InferShape<Shape>, extra: unknown) => Promise<CallToolResult>,
  extras?: { annotations?: ToolAnnotations },
): SdkMcpToolDefinition<Shape> {
  return { name, description, inputSchema, handler, annotations: extras?.annotations };
}

/** Options of `createSdkMcpServer`. */
export interface CreateSdkMcpServerOptions {
  name: string;
  version?: string;
  /** Tools written with `tool()`, or Goat tools made with `defineTool`. */
  tools?: ReadonlyArray<SdkMcpToolDefinition<any> | Tool>;
}

/** Makes an in-process MCP server config to put in `mcpServers`. */
export function createSdkMcpServer(options: CreateSdkMcpServerOptions): McpSdkServerConfigWithInstance {
  const names = new Set<string>();
  for (const t of options.tools ?? []) {
    if (names.has(t.name)) {
      throw new InvalidToolError(`MCP server "${options.name}" has two tools named "${t.name}"`, t.name);
    }
    names.add(t.name);
  }
  const instance: SdkMcpServerInstance = {
    kind: "goat-sdk-mcp-server",
    name: options.name,
    version: options.version ?? "1.0.0",
    tools: [...(options.tools ?? [])],
  };
  return { type: "sdk", name: options.name, instance };
}

/** Whether a tool of an in-process server is a Goat `Tool` (from `defineTool`) rather than a `tool()`. */
export function isGoatTool(t: SdkMcpToolDefinition<any> | Tool): t is Tool {
  return typeof (t as Tool).execute === "function" && "jsonSchema" in t;
}

/** Whether an `instance` is a recipe from `createSdkMcpServer` (else a live `McpServer` or a transport). */
export function isSdkServerRecipe(instance: unknown): instance is SdkMcpServerInstance {
  return (instance as SdkMcpServerInstance | undefined)?.kind === "goat-sdk-mcp-server";
}
