/**
 * Read, Write and Edit through the client's file system (`fs/read_text_file`, `fs/write_text_file`)
 * when the client offers it: the model reads what the editor shows (unsaved changes included) and its
 * edits land in the editor's buffer (undo works) instead of under it on disk. Same names,
 * descriptions and input schemas as Goat's own tools, so the model sees no difference and the
 * permission engine checks the calls as it checks those (path scope, protected files, acceptEdits)
 * before they run.
 */
import { realpathSync, statSync } from "node:fs";
import type { AgentContext, ClientCapabilities } from "@agentclientprotocol/sdk";
import type { Tool, ToolResult } from "../../index.js";
import {
  checkWriteTarget,
  editTool,
  formatReadText,
  planEdit,
  READ_DEFAULT_LINES,
  type ReadDetails,
  readTool,
  type ToolContext,
  writeTool,
} from "../../tools/index.js";

/**
 * Read (when the client can read files), Write and Edit (when it can also write) by the name they
 * replace; none when the client offers neither (Goat's own tools then use the disk).
 */
export function clientFileTools(
  client: AgentContext,
  sessionId: string,
  capabilities: ClientCapabilities | undefined,
): Map<string, Tool> {
  const replacements = new Map<string, Tool>();
  const read: Read = async (path, range) =>
    (await client.request("fs/read_text_file", { sessionId, path, ...range })).content;
  const write = async (path: string, content: string): Promise<void> => {
    await client.request("fs/write_text_file", { sessionId, path, content });
  };
  const canRead = capabilities?.fs?.readTextFile === true;
  if (canRead) replacements.set("Read", clientReadTool(read));
  if (capabilities?.fs?.writeTextFile !== true) return replacements;
  replacements.set("Write", clientWriteTool(write));
  if (canRead) replacements.set("Edit", clientEditTool(read, write));
  return replacements;
}

type Write = (path: string, content: string) => Promise<void>;
type Read = (path: string, range?: { line: number; limit: number }) => Promise<string>;

/**
 * Goat's Read of the disk's file first, for its checks (the scope, images, binary files) and the
 * record Write and Edit look for; then, for text, the lines asked for from the editor's buffer: what
 * the user sees, saved or not.
 */
function clientReadTool(read: Read): Tool {
  return {
    ...readTool,
    async execute(input: { file_path: string; offset?: number; limit?: number }, ctx: ToolContext) {
      const own = await readTool.execute({ file_path: input.file_path, limit: 1 }, ctx);
      const details = own.details as ReadDetails | undefined;
      if (own.isError || details?.type !== "text") return own;
      const startLine = Math.max(1, input.offset ?? 1);
      const maxLines = input.limit ?? READ_DEFAULT_LINES;
      // One line more than asked for tells whether the buffer goes on.
      const text = await read(realPathOf(details.filePath), { line: startLine, limit: maxLines + 1 });
      const shown = formatReadText(text, startLine, maxLines);
      const name = JSON.stringify(details.filePath);
      if (shown.lines.length === 0) {
        return startLine === 1
          ? { content: `Warning: the file ${name} exists but its contents are empty.` }
          : { content: `${name} has fewer than ${startLine} lines in the editor.`, isError: true };
      }
      const content = shown.lines.join("\n");
      const numLines = shown.lines.length;
      return {
        content: shown.content,
        details: {
          type: "text",
          filePath: details.filePath,
          startLine,
          numLines,
          hasMore: shown.hasMore,
          file: { filePath: details.filePath, content, numLines, startLine },
        },
      };
    },
  };
}

/**
 * Goat's read-before-write rule for a buffer: a file that exists must have been read in this session.
 * Its on-disk freshness is not checked: the editor owns the buffer and may save it at any time.
 */
function unreadRefusal(realPath: string, ctx: ToolContext): string | undefined {
  if (ctx.state.readFiles.has(realPath) || !existsOnDisk(realPath)) return undefined;
  return `File has not been read yet. Read it first before writing to it: ${realPath}`;
}

/**
 * After a write to the buffer the model has seen the file; the disk may not hold it yet, so Goat's
 * own disk tools (NotebookEdit) still find it changed and ask for a Read.
 */
function markWritten(realPath: string, ctx: ToolContext): void {
  ctx.state.readFiles.set(realPath, { mtimeMs: -1, size: -1 });
}

function existsOnDisk(realPath: string): boolean {
  try {
    statSync(realPath);
    return true;
  } catch {
    return false;
  }
}

function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function clientWriteTool(write: Write): Tool {
  return {
    ...writeTool,
    async execute(input: { file_path: string; content: string }, ctx: ToolContext): Promise<ToolResult> {
      if (!input.file_path.startsWith("/")) return failure(`file_path must be absolute: ${input.file_path}`);
      // Where the write lands, links resolved, held to the session's scope as Goat's Write holds it:
      // the editor is sent that real path, so a link cannot carry the write somewhere unchecked.
      const target = checkWriteTarget(input.file_path, ctx);
      if ("error" in target) return failure(target.error);
      const unread = unreadRefusal(target.realPath, ctx);
      if (unread) return failure(unread);
      await write(target.realPath, input.content);
      markWritten(target.realPath, ctx);
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
      const unread = unreadRefusal(target.realPath, ctx);
      if (unread) return failure(unread);
      const before = await read(target.realPath);
      // The replacement Goat's own Edit makes: the same matching (CRLF files too) and the same advice
      // when the string is missing or not unique.
      const plan = planEdit(before, input.old_string, input.new_string, input.replace_all === true);
      if (!plan.ok) return failure(plan.message);
      const after = plan.content;
      await write(target.realPath, after);
      markWritten(target.realPath, ctx);
      return { content: `The file ${input.file_path} was edited (in the editor).` };
    },
  };
}

function failure(message: string): ToolResult {
  return { content: message, isError: true };
}
