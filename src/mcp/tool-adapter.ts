/**
 * Turns the tools an MCP server lists into Goat tools named `mcp__<server>__<tool>`, and MCP call
 * results into Goat tool results. Needs no MCP SDK code at run time: the call itself is passed in.
 *
 * The input schema the model sees is the server's own JSON Schema, unchanged. Goat's check is
 * permissive (any object): the server validates the arguments and answers a bad call with an
 * `isError` result the model can read, so there is no second, possibly stricter, copy of its rules.
 */
import type { ImageBlock, TextBlock } from "../llm/types.js";
import { jsonSchemaValidator } from "../schema/json-schema-validator.js";
import type { SideEffect, Tool, ToolContext, ToolResult } from "../tools/types.js";
import type { CallToolResult, ToolAnnotations } from "./types.js";

/** A tool as `tools/list` describes it (the fields Goat uses). */
export interface McpToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { type: "object"; [key: string]: unknown };
  annotations?: ToolAnnotations;
}

/** Calls one tool of a server; progress messages go to `onProgress`. */
export type McpCall = (
  toolName: string,
  args: Record<string, unknown>,
  ctx: ToolContext,
  onProgress: (message: string) => void,
) => Promise<CallToolResult>;

/** Goat's longest tool name (the providers' limit). */
const MAX_TOOL_NAME = 128;

/** Replaces every character outside `[a-zA-Z0-9_-]` with `_`, as tool names require. */
export function sanitizeName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, "_");
}

/** The Goat name of a server's tool: `mcp__<server>__<tool>`, sanitised and at most 128 characters. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${sanitizeName(server)}__${sanitizeName(tool)}`.slice(0, MAX_TOOL_NAME);
}

/**
 * The side-effect class of an MCP tool, from its annotations (no annotation means it may change things).
 * It tells the scheduler which calls may overlap, and lets plan mode refuse a tool its server says
 * changes things; it never lets a call through: the permission engine asks for every MCP tool that no
 * rule allows, whatever the server claims (`isMcpTool` in permissions/tool-kinds.ts).
 */
export function sideEffectOf(annotations: ToolAnnotations | undefined): SideEffect {
  if (annotations?.readOnlyHint !== true) return "mutating";
  return annotations.openWorldHint === true ? "read" : "none";
}

const permissiveInput = jsonSchemaValidator<Record<string, unknown>>({ type: "object" });

/**
 * Makes the Goat tool for one MCP tool; `goatName` is its already de-duplicated Goat name and
 * `timeoutMs` the server's own limit on a call, when its config gives one.
 */
export function adaptMcpTool(
  server: string,
  info: McpToolInfo,
  goatName: string,
  call: McpCall,
  timeoutMs?: number,
): Tool {
  const jsonSchema: Record<string, unknown> = { ...info.inputSchema, type: "object" };
  return {
    name: goatName,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    description: info.description ?? info.title ?? `Tool ${info.name} of MCP server ${server}`,
    inputSchema: permissiveInput,
    jsonSchema,
    sideEffect: sideEffectOf(info.annotations),
    execute: async (input: Record<string, unknown>, ctx: ToolContext) => {
      const result = await call(info.name, input, ctx, ctx.onUpdate);
      return mapCallToolResult(result);
    },
  };
}

const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/**
 * Maps an MCP result onto a Goat result: text and images stay blocks, embedded resources and links
 * become text, `structuredContent` goes to `details` (and to the text when there is no other content).
 */
export function mapCallToolResult(result: CallToolResult): ToolResult {
  const blocks: Array<TextBlock | ImageBlock> = [];
  const content = Array.isArray(result.content) ? result.content : [];
  for (const item of content) blocks.push(...mapContentItem(item));
  const structured = result.structuredContent;
  if (blocks.length === 0 && structured !== undefined) {
    blocks.push({ type: "text", text: JSON.stringify(structured) });
  }
  // Old servers may answer with `toolResult` instead of `content`.
  if (blocks.length === 0 && "toolResult" in result && result.toolResult !== undefined) {
    blocks.push({ type: "text", text: JSON.stringify(result.toolResult) });
  }
  const out: ToolResult = { content: blocks.length > 0 ? blocks : "(no output)" };
  if (result.isError === true) out.isError = true;
  if (structured !== undefined) out.details = structured;
  return out;
}

function mapContentItem(item: CallToolResult["content"][number]): Array<TextBlock | ImageBlock> {
  switch (item.type) {
    case "text":
      return [{ type: "text", text: item.text }];
    case "image":
      return [imageOrNote(item.data, item.mimeType, "image")];
    case "audio":
      return [{ type: "text", text: `[audio (${item.mimeType}) omitted: the model cannot hear it]` }];
    case "resource": {
      const r = item.resource;
      if (typeof r.text === "string") return [{ type: "text", text: r.text }];
      const mime = r.mimeType ?? "application/octet-stream";
      if (typeof r.blob === "string" && IMAGE_TYPES.has(mime)) return [imageOrNote(r.blob, mime, r.uri)];
      return [{ type: "text", text: `[binary resource ${r.uri} (${mime}) omitted]` }];
    }
    case "resource_link": {
      const about = item.description ? `: ${item.description}` : "";
      return [{ type: "text", text: `[resource ${item.name} at ${item.uri}${about}]` }];
    }
    default:
      return [{ type: "text", text: JSON.stringify(item) }];
  }
}

function imageOrNote(data: string, mimeType: string, label: string): TextBlock | ImageBlock {
  if (!IMAGE_TYPES.has(mimeType))
    return { type: "text", text: `[${label} (${mimeType}) omitted: unsupported type]` };
  const media_type = mimeType as "image/png" | "image/jpeg" | "image/gif" | "image/webp";
  return { type: "image", source: { type: "base64", media_type, data } };
}
