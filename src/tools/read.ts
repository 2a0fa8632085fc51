/**
 * The Read tool (Claude Code's `Read`): a file's lines in `cat -n` form, or an image as an image
 * block. Streams the file, so reading near the end of a huge file holds a few KB, and records what it
 * read so Write and Edit can check the model saw the current version.
 */
import fs from "node:fs/promises";
import type { ImageBlock } from "../llm/types.js";
import { defineTool } from "./define-tool.js";
import { describeFileError, isDirectoryMessage } from "./file-errors.js";
import { recordFileSnapshot } from "./file-state.js";
import { relativePathError, resolveToolPath, toAbsolutePath } from "./paths.js";
import { readLineRange } from "./read-lines.js";
import { jsonSchema } from "./tool-schema.js";
import type { ToolResult } from "./types.js";
import { scopeRefusal, whereItMoved } from "./write-target.js";

/** Lines returned when the model gives no `limit`. */
export const READ_DEFAULT_LINES = 2000;
/** Characters kept of one line. */
const READ_MAX_LINE_CHARS = 2000;
/** Characters of numbered output in one result, so one Read cannot flood the context. */
const READ_MAX_OUTPUT_CHARS = 256 * 1024;
/** Largest image returned as an image block (the providers' own per-image limit). */
const READ_MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Bytes inspected to tell text from binary and to recognise images. */
const SNIFF_BYTES = 8192;
const READ_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW;

/** Input of the Read tool. */
export interface ReadInput {
  file_path: string;
  /** The line to start from. */
  offset?: number;
  /** How many lines. */
  limit?: number;
}

const inputSchema = jsonSchema<ReadInput>(
  {
    type: "object",
    properties: {
      file_path: { type: "string", description: "The absolute path to the file to read" },
      offset: {
        description:
          "The line number to start reading from. Only provide if the file is too large to read at once",
        type: "integer",
        minimum: 0,
        maximum: Number.MAX_SAFE_INTEGER,
      },
      limit: {
        description: "The number of lines to read. Only provide if the file is too large to read at once.",
        type: "integer",
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
      },
    },
    required: ["file_path"],
  },
  { removeAdditional: true },
);

/** The image types Read returns as image blocks. */
export type ImageMediaType = Extract<ImageBlock["source"], { type: "base64" }>["media_type"];

/** Structured result of Read, for programs (never shown to the model). */
export interface ReadDetails {
  type: "text" | "image";
  filePath: string;
  startLine?: number;
  numLines?: number;
  /** Known when the read reached the end of the file. */
  totalLines?: number;
  hasMore?: boolean;
  mediaType?: string;
  bytes?: number;
  /**
   * Claude Code's shape of the same read (`tool_response.file` in PostToolUse hooks, `tool_use_result`
   * on the stream): the lines as read, without line numbers.
   */
  file?: { filePath: string; content: string; numLines: number; startLine: number; totalLines?: number };
}

const DESCRIPTION = `Reads a file from the local filesystem. You can access any file directly by using this tool.
Assume this tool is able to read all files on the machine. If the User provides a path to a file assume that path is valid. It is okay to read a file that does not exist; an error will be returned.

Usage:
- The file_path parameter must be an absolute path, not a relative path
- By default, it reads up to ${READ_DEFAULT_LINES} lines starting from the beginning of the file
- You can optionally specify a line offset and limit (especially handy for long files), but it's recommended to read the whole file by not providing these parameters
- Any lines longer than ${READ_MAX_LINE_CHARS} characters will be truncated
- Results are returned using cat -n format, with line numbers starting at 1
- This tool allows you to read images (PNG, JPEG, GIF, WebP). When reading an image file the contents are presented visually.
- This tool can only read files, not directories. To read a directory, use Glob or an ls command via the Bash tool.
- Binary files other than images cannot be read.
- You can call multiple tools in a single response. It is always better to speculatively read multiple potentially useful files in parallel.
- If you read a file that exists but has empty contents you will receive a warning in place of file contents.
- There is no need to re-read a file after editing or writing it: the tool tracks file state.`;

/** Largest file whose lines a partial read counts for `totalLines` (Claude Code's result shape). */
const COUNT_LINES_MAX_BYTES = 64 * 1024 * 1024;

/** Claude Code's `Read` tool. */
export const readTool = defineTool<ReadInput, ReadDetails>({
  name: "Read",
  description: DESCRIPTION,
  inputSchema,
  sideEffect: "none",
  async execute(input, ctx): Promise<ToolResult<ReadDetails>> {
    const relative = relativePathError(input.file_path, ctx.cwd);
    if (relative) return { content: relative, isError: true };
    const shown = toAbsolutePath(input.file_path, ctx.cwd);
    const realPath = resolveToolPath(input.file_path, ctx.cwd);
    // A path through a link must still land where the permission check allowed (write-target.ts).
    const scope = ctx.fileScope?.();
    const outOfScope = scope ? scopeRefusal(shown, realPath, scope, "read") : undefined;
    if (outOfScope) return { content: `Refused to read ${shown}: ${outOfScope}.`, isError: true };

    let handle: fs.FileHandle;
    try {
      // O_NONBLOCK: opening a FIFO must not wait for a writer; we refuse non-regular files below.
      // O_NOFOLLOW: the path is resolved already, so a link at its end now is one put there since.
      handle = await fs.open(realPath, READ_FLAGS);
    } catch (err) {
      return { content: describeFileError(err, shown, ctx.cwd), isError: true };
    }
    try {
      const moved = whereItMoved(handle.fd, realPath, "the file");
      if (moved) return { content: `Refused to read ${shown}: ${moved}.`, isError: true };
      const stats = await handle.stat();
      if (stats.isDirectory()) return { content: isDirectoryMessage(shown), isError: true };
      if (!stats.isFile()) {
        return {
          content: `${shown} is not a regular file (a device, FIFO or socket) and cannot be read.`,
          isError: true,
        };
      }
      const head = Buffer.alloc(Math.min(SNIFF_BYTES, stats.size));
      const { bytesRead } = await handle.read(head, 0, head.length, 0);
      const sniff = head.subarray(0, bytesRead);

      const mediaType = detectImageType(sniff);
      if (mediaType) {
        if (stats.size > READ_MAX_IMAGE_BYTES) {
          return {
            content: `Image ${shown} is ${formatBytes(stats.size)}, over the ${formatBytes(READ_MAX_IMAGE_BYTES)} limit for images. Resize or compress it (e.g. with Bash) and read the smaller copy.`,
            isError: true,
          };
        }
        const data = await handle.readFile();
        recordFileSnapshot(ctx.state, realPath, stats);
        const image: ImageBlock = {
          type: "image",
          source: { type: "base64", media_type: mediaType, data: data.toString("base64") },
        };
        return {
          content: [
            { type: "text", text: `Image ${shown} (${mediaType}, ${formatBytes(stats.size)}):` },
            image,
          ],
          details: { type: "image", filePath: shown, mediaType, bytes: stats.size },
        };
      }
      const binary = describeBinary(sniff);
      if (binary) {
        return {
          content: `${shown} appears to be a binary file (${binary}) and cannot be read as text.`,
          isError: true,
        };
      }

      recordFileSnapshot(ctx.state, realPath, stats);
      if (stats.size === 0) {
        return {
          // Plain text, the name quoted: a file name is the repository's choice, and no tool result
          // carries a reminder of Goat's (loop/model-framing.ts escapes any that one holds).
          content: `Warning: the file ${JSON.stringify(shown)} exists but its contents are empty.`,
          details: {
            type: "text",
            filePath: shown,
            startLine: 1,
            numLines: 0,
            totalLines: 0,
            hasMore: false,
          },
        };
      }
      const startLine = Math.max(1, input.offset ?? 1);
      const range = await readLineRange(handle, {
        startLine,
        maxLines: input.limit ?? READ_DEFAULT_LINES,
        maxLineChars: READ_MAX_LINE_CHARS,
        maxTotalChars: READ_MAX_OUTPUT_CHARS,
        // The line count of the whole file is part of Claude Code's result shape (tool_use_result);
        // counted up to a size that keeps it cheap (about 1.5 ms for 5 MB), left out above it.
        countToEnd: ctx.fullDetails === true && stats.size <= COUNT_LINES_MAX_BYTES,
        signal: ctx.signal,
      });
      const details: ReadDetails = {
        type: "text",
        filePath: shown,
        startLine,
        numLines: range.lines.length,
        totalLines: range.totalLines,
        hasMore: range.hasMore,
        file: {
          filePath: shown,
          content: range.lines.join("\n"),
          numLines: range.lines.length,
          startLine,
          totalLines: range.totalLines,
        },
      };
      if (range.lines.length === 0) {
        const total = range.totalLines ?? 0;
        return {
          content: `${shown} has ${total} line${total === 1 ? "" : "s"}, but offset ${startLine} was requested. Use an offset between 1 and ${total}.`,
          isError: true,
          details,
        };
      }
      return { content: formatNumbered(range.lines, range.cut, startLine, range), details };
    } finally {
      await handle.close();
    }
  },
});

/**
 * Text already in memory (an editor's buffer, say) as Read shows a file: lines `startLine…` (1-based),
 * at most `maxLines`, cut as Read cuts them, numbered as Read numbers them. `text` starts at
 * `startLine`; a line beyond `maxLines` in it means the file has more.
 */
export function formatReadText(
  text: string,
  startLine: number,
  maxLines: number,
): { content: string; lines: string[]; hasMore: boolean } {
  const all = text.split(/\r?\n/);
  if (all.at(-1) === "") all.pop();
  const lines: string[] = [];
  const cut: boolean[] = [];
  let total = 0;
  let stoppedAtCharCap = false;
  for (const line of all.slice(0, maxLines)) {
    const kept = line.length > READ_MAX_LINE_CHARS ? line.slice(0, READ_MAX_LINE_CHARS) : line;
    if (lines.length > 0 && total + kept.length > READ_MAX_OUTPUT_CHARS) {
      stoppedAtCharCap = true;
      break;
    }
    total += kept.length + 1;
    lines.push(kept);
    cut.push(kept !== line);
  }
  const hasMore = stoppedAtCharCap || all.length > lines.length;
  return { content: formatNumbered(lines, cut, startLine, { hasMore, stoppedAtCharCap }), lines, hasMore };
}

/** Formats lines as `cat -n` does: the number right-aligned in six columns, a tab, the line. */
function formatNumbered(
  lines: string[],
  cut: boolean[],
  startLine: number,
  range: { hasMore: boolean; stoppedAtCharCap: boolean },
): string {
  const body = lines.map((line, i) => {
    const marker = cut[i] ? ` … [line truncated at ${READ_MAX_LINE_CHARS} characters]` : "";
    return `${String(startLine + i).padStart(6)}\t${line}${marker}`;
  });
  const last = startLine + lines.length - 1;
  let note = "";
  if (range.stoppedAtCharCap) {
    note = `\n\n(Output stopped at line ${last} to stay under ${formatBytes(READ_MAX_OUTPUT_CHARS)}. Call Read with offset=${last + 1} to continue.)`;
  } else if (range.hasMore) {
    note = `\n\n(Showing lines ${startLine}-${last}. The file has more lines: call Read with offset=${last + 1} to continue.)`;
  }
  return body.join("\n") + note;
}

/** Recognises PNG, JPEG, GIF and WebP by their magic bytes (extensions lie). */
function detectImageType(head: Uint8Array): ImageMediaType | undefined {
  const b = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (
    b.length >= 8 &&
    b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
  ) {
    return "image/png";
  }
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  const ascii = b.subarray(0, 12).toString("latin1");
  if (ascii.startsWith("GIF87a") || ascii.startsWith("GIF89a")) return "image/gif";
  if (ascii.startsWith("RIFF") && ascii.slice(8, 12) === "WEBP") return "image/webp";
  return undefined;
}

/**
 * Why the first bytes look binary (a NUL byte, a PDF header, or many control characters), or
 * `undefined` for text. Invalid UTF-8 alone is not binary: it is shown with replacement characters.
 */
function describeBinary(head: Uint8Array): string | undefined {
  if (head.length >= 5 && Buffer.from(head.buffer, head.byteOffset, 5).toString("latin1") === "%PDF-") {
    return "a PDF document";
  }
  let control = 0;
  for (const byte of head) {
    if (byte === 0) return "it contains NUL bytes";
    // Tab, LF, VT, FF, CR, ESC (colour codes in logs) and backspace occur in text files.
    if ((byte < 0x20 && !(byte >= 0x08 && byte <= 0x0d) && byte !== 0x1b) || byte === 0x7f) control++;
  }
  return control / head.length > 0.1 ? "it is mostly control characters" : undefined;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
