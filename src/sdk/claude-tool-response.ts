/**
 * Each built-in tool's output in the shape Claude Code gives it, so code written for Claude Code parses
 * Goat's too: the `tool_response` of PostToolUse hooks and the `tool_use_result` of the SDK's user
 * messages. Read `{type: "text", file: {filePath, content, numLines, startLine, totalLines}}` (or
 * `image`), Write `{type, filePath, content, structuredPatch, originalFile}`, Edit `{filePath, oldString,
 * newString, originalFile, structuredPatch, userModified, replaceAll}`, Bash `{stdout, stderr,
 * interrupted, isImage}`, Glob `{filenames, durationMs, numFiles, truncated}`, Grep `{mode, filenames,
 * numFiles, content?, numLines?, numMatches?, appliedLimit?, appliedOffset?}`, TodoWrite `{oldTodos,
 * newTodos}`. A failed call is `"Error: <what the model was told>"`, as in Claude Code. Other tools give
 * their `details`, or their text.
 */
import type { BashDetails } from "../tools/bash.js";
import type { EditDetails } from "../tools/edit.js";
import type { GlobDetails } from "../tools/glob.js";
import type { GrepDetails } from "../tools/grep-format.js";
import type { ReadDetails } from "../tools/read.js";
import type { ToolContent, ToolResult } from "../tools/types.js";
import type { WriteDetails } from "../tools/write.js";
import { structuredPatch } from "./structured-patch.js";

/** The built-in tools whose output has a Claude Code shape (their failures are `"Error: …"` strings). */
const SHAPED_TOOLS: ReadonlySet<string> = new Set([
  "Read",
  "Write",
  "Edit",
  "Bash",
  "Glob",
  "Grep",
  "TodoWrite",
  "NotebookEdit",
  "BashOutput",
  "KillShell",
]);

/**
 * The `tool_use_result` of a call's SDK user message: Claude Code's shape for the built-in tools (an
 * `"Error: …"` string when the call failed), the `details` of other tools. Undefined when a custom
 * tool gave no details and did not fail.
 */
export function sdkToolUseResult(
  toolName: string,
  input: Record<string, unknown>,
  result: ToolResult,
  isError: boolean,
): unknown {
  if (isError && (SHAPED_TOOLS.has(toolName) || result.details === undefined)) {
    return `Error: ${contentText(result.content)}`;
  }
  if (!SHAPED_TOOLS.has(toolName)) return result.details;
  return claudeToolResponse(toolName, input, result);
}

/**
 * The `tool_response` for a successful call of `toolName`. The fields that need more than Goat's small
 * `details` (a file's text before the change, a command's stdout, a partial read's line count) are there
 * when the tool ran with `fullDetails`.
 */
export function claudeToolResponse(
  toolName: string,
  input: Record<string, unknown>,
  result: ToolResult,
): unknown {
  const details = result.details as Record<string, unknown> | undefined;
  const text = contentText(result.content);
  if (!details || typeof details !== "object") return text;
  switch (toolName) {
    case "Read":
      return readResponse(details as unknown as ReadDetails, result.content);
    case "Write":
      return writeResponse(details as unknown as WriteDetails, input);
    case "Edit":
      return editResponse(details as unknown as EditDetails, input);
    case "Bash":
      return bashResponse(details as unknown as BashDetails, text);
    case "Glob": {
      const { filenames, durationMs, numFiles, truncated } = details as unknown as GlobDetails;
      return { filenames, durationMs, numFiles, truncated };
    }
    case "Grep": {
      const { backend: _backend, ...grep } = details as unknown as GrepDetails;
      return grep;
    }
    default:
      return details;
  }
}

function readResponse(d: ReadDetails, content: ToolContent): unknown {
  if (d.type === "image") {
    const image = Array.isArray(content) ? content.find((b) => b.type === "image") : undefined;
    const base64 = image?.type === "image" && image.source.type === "base64" ? image.source.data : "";
    return { type: "image", file: { base64, type: d.mediaType, originalSize: d.bytes } };
  }
  const numLines = d.numLines ?? 0;
  return {
    type: "text",
    file: {
      filePath: d.filePath,
      content: d.file?.content ?? linesRead(contentText(content), numLines),
      numLines,
      startLine: d.startLine ?? 1,
      // Known when the read reached the end, or when the tool counted the rest (`fullDetails`).
      totalLines: d.totalLines,
    },
  };
}

/** The file text Read showed, without its `cat -n` numbers, truncation markers and closing note. */
function linesRead(text: string, numLines: number): string {
  if (numLines === 0) return "";
  const lines = text.split("\n", numLines);
  return lines
    .map((l) => l.replace(/^ *\d+\t/, "").replace(/ … \[line truncated at \d+ characters\]$/, ""))
    .join("\n");
}

function writeResponse(d: WriteDetails, input: Record<string, unknown>): unknown {
  const content = typeof input.content === "string" ? input.content : "";
  const originalFile = d.type === "create" ? null : (d.originalFile ?? null);
  return {
    type: d.type,
    filePath: d.filePath,
    content,
    structuredPatch: originalFile === null ? [] : structuredPatch(originalFile, content),
    originalFile,
  };
}

function editResponse(d: EditDetails, input: Record<string, unknown>): unknown {
  const originalFile = d.originalFile ?? "";
  return {
    filePath: d.filePath,
    oldString: input.old_string,
    newString: input.new_string,
    originalFile,
    structuredPatch: d.updatedFile === undefined ? [] : structuredPatch(originalFile, d.updatedFile),
    userModified: false,
    replaceAll: input.replace_all === true,
  };
}

function bashResponse(d: BashDetails, text: string): unknown {
  if (d.backgroundShellId) {
    return {
      stdout: "",
      stderr: "",
      interrupted: false,
      isImage: false,
      backgroundTaskId: d.backgroundShellId,
      ...(d.backgroundedByUser ? { backgroundedByUser: true } : {}),
    };
  }
  const stdout = d.stdout ?? text;
  return {
    stdout: stdout.replace(/\n+$/, ""),
    stderr: "", // the shell writes stderr into stdout, in the order the two were written
    interrupted: d.interrupted,
    isImage: false,
    ...(d.outputFile ? { persistedOutputPath: d.outputFile, persistedOutputSize: d.totalBytes } : {}),
  };
}

function contentText(content: ToolContent): string {
  if (typeof content === "string") return content;
  return content.map((b) => (b.type === "text" ? b.text : "[image]")).join("\n");
}
