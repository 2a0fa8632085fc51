/**
 * The Write tool (Claude Code's `Write`): creates or overwrites a file with the given content.
 * Overwriting needs a prior Read of the current version; the write is atomic (temp file + rename) and
 * goes to the directory the path resolved to when checked (write-target.ts).
 */
import fs from "node:fs/promises";
import { defineTool } from "./define-tool.js";
import { isDirectoryMessage } from "./file-errors.js";
import { checkFreshForWrite, recordFileSnapshot } from "./file-state.js";
import { relativePathError, resolveToolPath } from "./paths.js";
import { jsonSchema } from "./tool-schema.js";
import type { ToolResult } from "./types.js";
import { openWriteTarget, READ_NO_FOLLOW, replaceTarget, type WriteTarget } from "./write-target.js";

/** Input of the Write tool. */
export interface WriteInput {
  file_path: string;
  content: string;
}

const inputSchema = jsonSchema<WriteInput>(
  {
    type: "object",
    properties: {
      file_path: {
        type: "string",
        description: "The absolute path to the file to write (must be absolute, not relative)",
      },
      content: { type: "string", description: "The content to write to the file" },
    },
    required: ["file_path", "content"],
  },
  { removeAdditional: true },
);

/** Structured result of Write, for programs. */
export interface WriteDetails {
  type: "create" | "update";
  filePath: string;
  lines: number;
  bytes: number;
  /** With `ctx.fullDetails`: the file's text before it was replaced (null for a new file). */
  originalFile?: string | null;
}

const DESCRIPTION = `Writes a file to the local filesystem.

Usage:
- This tool will overwrite the existing file if there is one at the provided path.
- If this is an existing file, you MUST use the Read tool first to read the file's contents. This tool will fail if you did not read the file first, or if it changed on disk since you read it.
- Missing parent directories are created.
- ALWAYS prefer editing existing files in the codebase. NEVER write new files unless explicitly required.
- NEVER proactively create documentation files (*.md) or README files. Only create documentation files if explicitly requested by the User.
- Only use emojis if the user explicitly requests it. Avoid writing emojis to files unless asked.`;

/** Claude Code's `Write` tool. */
export const writeTool = defineTool<WriteInput, WriteDetails>({
  name: "Write",
  description: DESCRIPTION,
  inputSchema,
  sideEffect: "mutating",
  resourceKey: (input, ctx) => resolveToolPath(input.file_path, ctx.cwd),
  async execute(input, ctx): Promise<ToolResult<WriteDetails>> {
    const relative = relativePathError(input.file_path, ctx.cwd);
    if (relative) return { content: relative, isError: true };
    // The file is opened through its checked real directory, so a link changed meanwhile cannot redirect it.
    const target = openWriteTarget(input.file_path, ctx, { createDirs: true });
    if ("error" in target) return { content: target.error, isError: true };
    try {
      return await writeTo(target, input.content, ctx);
    } finally {
      target.close();
    }
  },
});

async function writeTo(
  target: WriteTarget,
  content: string,
  ctx: Parameters<typeof writeTool.execute>[1],
): Promise<ToolResult<WriteDetails>> {
  const { shown, realPath, current } = target;
  if (current?.isDirectory()) return { content: isDirectoryMessage(shown), isError: true };
  if (current && !current.isFile()) {
    return {
      content: `${shown} is not a regular file (a device, FIFO or socket); Write will not replace it.`,
      isError: true,
    };
  }
  const stale = checkFreshForWrite(ctx.state, realPath, current);
  if (stale) return { content: stale, isError: true };

  // Read only when Claude Code's output shape is asked for: an overwrite costs no extra read otherwise.
  const originalFile =
    ctx.fullDetails && current
      ? await fs.readFile(target.via, { encoding: "utf8", flag: READ_NO_FOLLOW }).catch(() => null)
      : null;
  ctx.signal.throwIfAborted();
  let written: import("node:fs").Stats;
  try {
    written = await replaceTarget(target, content, ctx.signal);
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    return { content: `Could not write ${shown}: ${describeWriteError(err)}`, isError: true };
  }
  recordFileSnapshot(ctx.state, realPath, written);

  const lines = countLines(content);
  const type = current ? "update" : "create";
  const text =
    type === "create"
      ? `File created successfully at: ${shown} (${lines} line${lines === 1 ? "" : "s"})`
      : `The file ${shown} has been updated (${lines} line${lines === 1 ? "" : "s"}).`;
  const details: WriteDetails = { type, filePath: shown, lines, bytes: written.size };
  if (ctx.fullDetails) details.originalFile = originalFile;
  return { content: text, details };
}

/** Lines in a text as an editor counts them: a trailing newline does not start another line. */
function countLines(text: string): number {
  if (text.length === 0) return 0;
  let count = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count++;
  return text.endsWith("\n") ? count - 1 : count;
}

/** Short, actionable text for a failed write. */
export function describeWriteError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === "EACCES" || code === "EPERM")
    return "permission denied (the file or its directory is not writable).";
  if (code === "ENOSPC") return "the disk is full; the original file was left unchanged.";
  if (code === "EROFS") return "the file system is read-only.";
  if (code === "ENOTDIR" || code === "EEXIST") return "a component of the path is a file, not a directory.";
  return err instanceof Error ? err.message : String(err);
}
