/**
 * Claude Code's two tools for MCP resources, offered while a connected server has the `resources`
 * capability: `ListMcpResourcesTool {server?}` lists what the servers offer, `ReadMcpResourceTool
 * {server, uri}` reads one. Text comes back as text; a binary item is saved to the session's temp folder
 * and its path given (`blobSavedTo`), as Claude Code does, instead of base64 in the context.
 * Resource contents come from a third-party server: they reach the model as data, never as instructions
 * Goat follows.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { PRIVATE_FILE_MODE } from "../session/private-files.js";
import { sessionTempDir } from "../tools/command-output.js";
import { defineTool } from "../tools/define-tool.js";
import { jsonSchema } from "../tools/tool-schema.js";
import type { Tool } from "../tools/types.js";
import type { McpResource, McpResourceContents } from "./types.js";

/** What the tools call on the session's MCP manager. */
export interface ResourceSource {
  listResources(server?: string, signal?: AbortSignal): Promise<McpResource[]>;
  readResource(server: string, uri: string, signal?: AbortSignal): Promise<McpResourceContents>;
}

/** Claude Code's `ReadMcpResourceTool` result: each item's text, or where its bytes were saved. */
interface ReadMcpResourceDetails {
  contents: Array<{ uri: string; mimeType?: string; text?: string; blobSavedTo?: string }>;
}

/** Longest resource text handed to the model in one read. */
const MAX_TEXT_CHARS = 100_000;

/** The two tools, reading from `source`. */
export function createResourceTools(source: ResourceSource): Tool[] {
  const list = defineTool<{ server?: string }, McpResource[]>({
    name: "ListMcpResourcesTool",
    description:
      "Lists the resources (files, documents, data) that the connected MCP servers offer, with each one's server, uri, name and type. Give `server` to list one server's. Read one with ReadMcpResourceTool.",
    inputSchema: jsonSchema<{ server?: string }>(
      {
        type: "object",
        properties: {
          server: { description: "Only this server's resources (its name as configured)", type: "string" },
        },
      },
      { removeAdditional: true },
    ),
    sideEffect: "read",
    async execute(input, ctx) {
      const resources = await source.listResources(input.server, ctx.signal);
      if (resources.length === 0) {
        return {
          content: "No resources found. MCP servers may still provide tools even if they have no resources.",
          details: [],
        };
      }
      return { content: JSON.stringify(resources), details: resources };
    },
  });

  const read = defineTool<{ server: string; uri: string }, ReadMcpResourceDetails>({
    name: "ReadMcpResourceTool",
    description:
      "Reads one resource of an MCP server by its uri (from ListMcpResourcesTool). Text comes back as text; binary contents are saved to a file whose path is given.",
    inputSchema: jsonSchema<{ server: string; uri: string }>(
      {
        type: "object",
        properties: {
          server: { type: "string", description: "The MCP server's name" },
          uri: { type: "string", description: "The resource's uri" },
        },
        required: ["server", "uri"],
      },
      { removeAdditional: true },
    ),
    sideEffect: "read",
    async execute(input, ctx) {
      const result = await source.readResource(input.server, input.uri, ctx.signal);
      const contents: ReadMcpResourceDetails["contents"] = [];
      let n = 0;
      for (const item of result.contents) {
        const entry: ReadMcpResourceDetails["contents"][number] = { uri: item.uri };
        if (item.mimeType !== undefined) entry.mimeType = item.mimeType;
        if (typeof item.text === "string") entry.text = item.text;
        else if (typeof item.blob === "string") {
          const file = path.join(
            sessionTempDir(ctx.state, ctx.sessionId),
            `mcp-resource-${ctx.toolUseId.replace(/[^A-Za-z0-9_-]/g, "_")}-${n++}`,
          );
          await writeFile(file, Buffer.from(item.blob, "base64"), { mode: PRIVATE_FILE_MODE });
          entry.blobSavedTo = file;
        }
        contents.push(entry);
      }
      let text = JSON.stringify({ contents });
      if (text.length > MAX_TEXT_CHARS) {
        text = `${text.slice(0, MAX_TEXT_CHARS)}\n… [resource cut at ${MAX_TEXT_CHARS} characters of ${text.length}]`;
      }
      return { content: text, details: { contents } };
    },
  });
  return [list, read] as Tool[];
}
