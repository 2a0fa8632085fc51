/**
 * The `tool_response` a PostToolUse hook receives, shaped as Claude Code shapes each built-in tool's
 * output, so hook scripts written for Claude Code parse Goat's too:
 * Read `{type: "text", file: {filePath, content, numLines, startLine, totalLines}}` (or `image`),
 * Write `{type, filePath, content, structuredPatch, originalFile}`,
 * Edit `{filePath, oldString, newString, originalFile, structuredPatch, userModified, replaceAll}`,
 * Bash `{stdout, stderr, interrupted, isImage}`, Glob `{filenames, durationMs, numFiles, truncated}`,
 * Grep `{mode, filenames, numFiles, content?, numLines?, numMatches?, appliedLimit?, appliedOffset?}`.
 * Other tools give their `details`, or their text.
 */
import { readFile } from "node:fs/promises";
import type { BashDetails } from "../tools/bash.js";
import type { EditDetails } from "../tools/edit.js";
import type { GlobDetails } from "../tools/glob.js";
import type { GrepDetails } from "../tools/grep-format.js";
import type { ReadDetails } from "../tools/read.js";
import type { ToolContent, ToolResult } from "../tools/types.js";
import type { WriteDetails } from "../tools/write.js";
import { structuredPatch } from "./structured-patch.js";

/** The `tool_response` for a successful call of `toolName`. */
export async function claudeToolResponse(
  toolName: string,
  input: Record<string, unknown>,
  result: ToolResult,
): Promise<unknown> {
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

async function readResponse(d: ReadDetails, content: ToolContent): Promise<unknown> {
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
      content: linesRead(contentText(content), numLines),
      numLines,
      startLine: d.startLine ?? 1,
      totalLines: d.totalLines ?? (await countFileLines(d.filePath)),
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

/** Lines of a file Read did not read to its end (counted only for a hook that asks). */
async function countFileLines(file: string): Promise<number | undefined> {
  try {
    const text = await readFile(file, "utf8");
    if (text === "") return 0;
    let count = 1;
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count++;
    return text.endsWith("\n") ? count - 1 : count;
  } catch {
    return undefined;
  }
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
    };
  }
  const stdout = d.stdout ?? text;
  return {
    stdout: stdout.replace(/\n+$/, ""),
    stderr: "", // the shell writes stderr into stdout, in the order the two were written
    interrupted: d.interrupted,
    isImage: false,
  };
}

function contentText(content: ToolContent): string {
  if (typeof content === "string") return content;
  return content.map((b) => (b.type === "text" ? b.text : "[image]")).join("\n");
}
