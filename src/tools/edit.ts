/**
 * The Edit tool (Claude Code's `Edit`): exact string replacement in a file the model has read.
 * Keeps the file's CRLF line endings and UTF-8 BOM, writes atomically, and answers with numbered
 * lines around the change so the model need not read the file again.
 */
import fs from "node:fs/promises";
import { defineTool } from "./define-tool.js";
import { planEdit } from "./edit-match.js";
import { describeFileError, isDirectoryMessage, missingFileMessage } from "./file-errors.js";
import { checkFreshForWrite, recordFileSnapshot } from "./file-state.js";
import { relativePathError, resolveToolPath } from "./paths.js";
import { jsonSchema } from "./tool-schema.js";
import type { ToolResult } from "./types.js";
import { describeWriteError } from "./write.js";
import { openWriteTarget, READ_NO_FOLLOW, replaceTarget, type WriteTarget } from "./write-target.js";

/** Files larger than this are refused: the edit happens in memory as one string. */
const EDIT_MAX_FILE_BYTES = 128 * 1024 * 1024;
/** Lines of context shown before and after the change. */
const SNIPPET_CONTEXT_LINES = 4;
const BOM = "\ufeff";

/** Input of the Edit tool (`replace_all` filled in: false when the model leaves it out). */
export interface EditInput {
  file_path: string;
  old_string: string;
  new_string: string;
  replace_all: boolean;
}

const inputSchema = jsonSchema<EditInput>(
  {
    type: "object",
    properties: {
      file_path: { type: "string", description: "The absolute path to the file to modify" },
      old_string: { type: "string", description: "The text to replace" },
      new_string: {
        type: "string",
        description: "The text to replace it with (must be different from old_string)",
      },
      replace_all: {
        default: false,
        description: "Replace all occurences of old_string (default false)",
        type: "boolean",
      },
    },
    required: ["file_path", "old_string", "new_string"],
  },
  { removeAdditional: true },
);

/** Structured result of Edit, for programs. */
export interface EditDetails {
  filePath: string;
  replacements: number;
  created: boolean;
  /** With `ctx.fullDetails`: the text before and after the edit (without BOM). */
  originalFile?: string;
  updatedFile?: string;
}

const DESCRIPTION = `Performs exact string replacements in files.

Usage:
- You must use your \`Read\` tool at least once in the conversation before editing. This tool will error if you attempt an edit without reading the file, or if the file changed on disk since you read it.
- When editing text from Read tool output, ensure you preserve the exact indentation (tabs/spaces) as it appears AFTER the line number prefix. The line number prefix format is: spaces + line number + tab. Everything after that tab is the actual file content to match. Never include any part of the line number prefix in the old_string or new_string.
- ALWAYS prefer editing existing files in the codebase. NEVER write new files unless explicitly required.
- Only use emojis if the user explicitly requests it. Avoid adding emojis to files unless asked.
- The edit will FAIL if \`old_string\` is not unique in the file. Either provide a larger string with more surrounding context to make it unique or use \`replace_all\` to change every instance of \`old_string\`.
- Use \`replace_all\` for replacing and renaming strings across the file. This parameter is useful if you want to rename a variable for instance.
- An empty old_string on a file that does not exist creates the file with new_string as its content.
- Line endings (CRLF) and a byte-order mark are preserved; write old_string and new_string with plain \\n line breaks.`;

/** Claude Code's `Edit` tool. */
export const editTool = defineTool<EditInput, EditDetails>({
  name: "Edit",
  description: DESCRIPTION,
  inputSchema,
  sideEffect: "mutating",
  resourceKey: (input, ctx) => resolveToolPath(input.file_path, ctx.cwd),
  async execute(input, ctx): Promise<ToolResult<EditDetails>> {
    const relative = relativePathError(input.file_path, ctx.cwd);
    if (relative) return { content: relative, isError: true };
    if (input.old_string === input.new_string) {
      return {
        content: "No changes to make: old_string and new_string are exactly the same.",
        isError: true,
      };
    }
    // The file is opened through its checked real directory, so a link changed meanwhile cannot redirect it.
    const target = openWriteTarget(input.file_path, ctx, { createDirs: input.old_string === "" });
    if ("error" in target) return { content: target.error, isError: true };
    try {
      return await editIn(target, input, ctx);
    } finally {
      target.close();
    }
  },
});

type EditCtx = Parameters<typeof editTool.execute>[1];

async function editIn(target: WriteTarget, input: EditInput, ctx: EditCtx): Promise<ToolResult<EditDetails>> {
  const { shown, realPath, current } = target;
  const fail = (content: string): ToolResult<EditDetails> => ({ content, isError: true });
  if (current === undefined) {
    if (input.old_string === "") return createFile(target, input.new_string, ctx);
    const vanished = ctx.state.readFiles.has(realPath) ? " It was deleted after you read it." : "";
    return fail(`${missingFileMessage(shown, ctx.cwd)}${vanished}`);
  }
  if (current.isDirectory()) return fail(isDirectoryMessage(shown));
  if (!current.isFile()) return fail(`${shown} is not a regular file and cannot be edited.`);
  const stale = checkFreshForWrite(ctx.state, realPath, current);
  if (stale) return fail(stale);
  if (current.size > EDIT_MAX_FILE_BYTES) {
    return fail(
      `${shown} is ${current.size} bytes, too large for Edit (limit ${EDIT_MAX_FILE_BYTES}). Use Bash (sed) instead.`,
    );
  }

  let raw: Buffer;
  try {
    raw = await fs.readFile(target.via, { signal: ctx.signal, flag: READ_NO_FOLLOW });
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    return fail(describeFileError(err, shown, ctx.cwd));
  }
  const decoded = decodeStrict(raw);
  if (decoded === undefined) {
    return fail(
      `${shown} is not valid UTF-8 text (binary or another encoding); editing it as text would corrupt it. Use Bash instead.`,
    );
  }
  const hasBom = decoded.startsWith(BOM);
  const text = hasBom ? decoded.slice(1) : decoded;
  if (input.old_string === "") {
    if (text.length > 0) {
      return fail(
        "Cannot create new file - file already exists and is not empty. Use a non-empty old_string to edit it.",
      );
    }
    const change = { text: input.new_string, firstIndex: 0, inserted: input.new_string, replacements: 1 };
    return saveEdit(target, change, hasBom, ctx, text);
  }
  const plan = planEdit(text, input.old_string, input.new_string, input.replace_all);
  if (!plan.ok) return fail(plan.message);
  const change = {
    text: plan.content,
    firstIndex: plan.firstIndex,
    inserted: plan.insertedText,
    replacements: plan.replacements,
  };
  return saveEdit(target, change, hasBom, ctx, text);
}

async function createFile(
  target: WriteTarget,
  content: string,
  ctx: EditCtx,
): Promise<ToolResult<EditDetails>> {
  const { shown } = target;
  ctx.signal.throwIfAborted();
  try {
    const written = await replaceTarget(target, content, ctx.signal);
    recordFileSnapshot(ctx.state, target.realPath, written);
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    return { content: `Could not create ${shown}: ${describeWriteError(err)}`, isError: true };
  }
  return {
    content: `File created successfully at: ${shown}`,
    details: {
      filePath: shown,
      replacements: 0,
      created: true,
      ...(ctx.fullDetails ? { originalFile: "", updatedFile: content } : {}),
    },
  };
}

/** The edited text (without BOM), where the change starts, and what was inserted there. */
interface Change {
  text: string;
  firstIndex: number;
  inserted: string;
  replacements: number;
}

async function saveEdit(
  target: WriteTarget,
  change: Change,
  hasBom: boolean,
  ctx: EditCtx,
  original: string,
): Promise<ToolResult<EditDetails>> {
  const { shown } = target;
  ctx.signal.throwIfAborted();
  try {
    const written = await replaceTarget(target, (hasBom ? BOM : "") + change.text, ctx.signal);
    recordFileSnapshot(ctx.state, target.realPath, written);
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    return { content: `Could not write ${shown}: ${describeWriteError(err)}`, isError: true };
  }
  const { replacements } = change;
  const what = replacements > 1 ? `All ${replacements} occurrences were replaced. ` : "";
  const snippet = snippetAround(change.text, change.firstIndex, change.inserted);
  return {
    content: `The file ${shown} has been updated. ${what}Here's the result of running \`cat -n\` on a snippet of the edited file:\n${snippet}`,
    details: {
      filePath: shown,
      replacements,
      created: false,
      ...(ctx.fullDetails ? { originalFile: original, updatedFile: change.text } : {}),
    },
  };
}

/** Numbered lines around the text inserted at `index`, in the same form as Read's output. */
function snippetAround(content: string, index: number, inserted: string): string {
  const lines = content.split("\n");
  const firstChanged = countNewlines(content, 0, index);
  // A trailing newline in the inserted text ends its last line; it does not change the next one.
  const insertedLines = countNewlines(inserted, 0, inserted.length) - (inserted.endsWith("\n") ? 1 : 0);
  const lastChanged = firstChanged + Math.max(0, insertedLines);
  const from = Math.max(0, firstChanged - SNIPPET_CONTEXT_LINES);
  const to = Math.min(lines.length - 1, lastChanged + SNIPPET_CONTEXT_LINES);
  const shown: string[] = [];
  for (let i = from; i <= to; i++) {
    if (i === lines.length - 1 && lines[i] === "" && i > from) break;
    shown.push(`${String(i + 1).padStart(6)}\t${lines[i].replace(/\r$/, "")}`);
  }
  return shown.join("\n");
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = text.indexOf("\n", from); i !== -1 && i < to; i = text.indexOf("\n", i + 1)) count++;
  return count;
}

/** Decodes UTF-8, or `undefined` when the bytes are not valid UTF-8 (or contain NUL, i.e. binary). */
function decodeStrict(raw: Buffer): string | undefined {
  if (raw.includes(0)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(raw);
  } catch {
    // TypeError on invalid UTF-8: the caller explains why the file cannot be edited.
    return undefined;
  }
}
