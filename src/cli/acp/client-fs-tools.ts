/**
 * Write and Edit through the client's file system (`fs/write_text_file`, `fs/read_text_file`) when
 * the client offers it: the edit lands in the editor's buffer (unsaved changes included, undo
 * works) instead of under it on disk. Same names, descriptions and input schemas as Goat's own
 * tools, so the model sees no difference and the permission engine checks the calls as it checks
 * those (path scope, protected files, acceptEdits) before they run.
 */
import type { AgentContext, ClientCapabilities } from "@agentclientprotocol/sdk";
import type { Tool, ToolResult } from "../../index.js";
import { checkWriteTarget, editTool, planEdit, type ToolContext, writeTool } from "../../tools/index.js";

/**
 * Write (and Edit, when the client can also read) by the name they replace; none when the client
 * cannot write files (Goat's own tools then write to disk).
 */
export function clientFileTools(
  client: AgentContext,
  sessionId: string,
  capabilities: ClientCapabilities | undefined,
): Map<string, Tool> {
  const replacements = new Map<string, Tool>();
  if (capabilities?.fs?.writeTextFile !== true) return replacements;
  const write = async (path: string, content: string): Promise<void> => {
    await client.request("fs/write_text_file", { sessionId, path, content });
  };
  const read = async (path: string): Promise<string> =>
    (await client.request("fs/read_text_file", { sessionId, path })).content;
  replacements.set("Write", clientWriteTool(write));
  if (capabilities.fs.readTextFile === true) replacements.set("Edit", clientEditTool(read, write));
  return replacements;
}

type Write = (path: string, content: string) => Promise<void>;
type Read = (path: string) => Promise<string>;

function clientWriteTool(write: Write): Tool {
  return {
    ...writeTool,
    async execute(input: { file_path: string; content: string }, ctx: ToolContext): Promise<ToolResult> {
      if (!input.file_path.startsWith("/")) return failure(`file_path must be absolute: ${input.file_path}`);
      // Where the write lands, links resolved, held to the session's scope as Goat's Write holds it:
      // the editor is sent that real path, so a link cannot carry the write somewhere unchecked.
      const target = checkWriteTarget(input.file_path, ctx);
      if ("error" in target) return failure(target.error);
      await write(target.realPath, input.content);
      return { content: `The file ${input.file_path} was written (in the editor).` };
    },
  };
}

function clientEditTool(read: Read, write: Write): Tool {
  return {
    ...editTool,
    async execute(
      input: {
        file_path: string;
        old_string: string;
        new_string: string;
        replace_all?: boolean;
      },
      ctx: ToolContext,
    ): Promise<ToolResult> {
      if (!input.file_path.startsWith("/")) return failure(`file_path must be absolute: ${input.file_path}`);
      const target = checkWriteTarget(input.file_path, ctx);
      if ("error" in target) return failure(target.error);
      if (input.old_string === input.new_string) return failure("old_string and new_string are the same");
      const before = await read(target.realPath);
      // The replacement Goat's own Edit makes: the same matching (CRLF files too) and the same advice
      // when the string is missing or not unique.
      const plan = planEdit(before, input.old_string, input.new_string, input.replace_all === true);
      if (!plan.ok) return failure(plan.message);
      const after = plan.content;
      await write(target.realPath, after);
      return { content: `The file ${input.file_path} was edited (in the editor).` };
    },
  };
}

function failure(message: string): ToolResult {
  return { content: message, isError: true };
}
