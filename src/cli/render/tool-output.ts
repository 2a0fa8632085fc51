/**
 * How a tool's outcome is shown under its call: an error's first line in red, Bash output as its first
 * lines with a count of the hidden rest, Edit and Write as a coloured diff, other tools as their first
 * line. Tool output is hostile input: control characters are made visible before anything is printed
 * (`terminal/safe-text.ts`), and an output line cannot start with one of Goat's own marks.
 * The outcome is a block that renders for a width (Bash lines are clipped to it), keeping only what
 * it shows, not the whole output.
 */
import { isAbsolute, relative } from "node:path";
import { richIfLoaded } from "../rich-loader.js";
import type { Style } from "../style.js";
import { terminalSafe, withoutUiMarks } from "../terminal/safe-text.js";
import { clipEnd } from "../terminal/text-width.js";
import type { Block } from "../terminal/transcript.js";
import { firstResultLine, resultSummary } from "./tool-summary.js";

/** What the renderer remembers of a tool call until its result arrives. */
export interface ToolCallInfo {
  name: string;
  input: Record<string, unknown>;
  label: string;
  /** The call was shown in full already (TodoWrite's checklist): only an error result is printed. */
  quiet?: boolean;
}

/** Lines of Bash output shown before the "+N lines" count. */
const BASH_LINES_SHOWN = 5;

/** The lines printed under a tool call for its result (each ending with a newline), for a width. */
export function formatToolResult(
  call: ToolCallInfo | undefined,
  content: unknown,
  isError: boolean,
  style: Style,
  cwd: string,
): Block {
  const fixed =
    (text: string): Block =>
    () =>
      text;
  const text = resultText(content);
  if (isError) return fixed(`  ⎿ ${style.red("error")}: ${terminalSafe(firstResultLine(text))}\n`);
  if (call?.name === "Bash") return bashOutput(text, style);
  const rich = richIfLoaded();
  const input = call?.input ?? {};
  const filePath = typeof input.file_path === "string" ? input.file_path : undefined;
  if (rich && filePath !== undefined) {
    const shown = shownPath(filePath, cwd);
    if (call?.name === "Edit" && typeof input.old_string === "string" && typeof input.new_string === "string")
      return fixed(rich.editDiff(filePath, input.old_string, input.new_string, shown, style, terminalSafe));
    if (call?.name === "Write" && typeof input.content === "string")
      return fixed(rich.writeView(input.content, shown, style, terminalSafe));
  }
  const hasImage = Array.isArray(content) && content.some((b) => (b as { type?: string })?.type === "image");
  const summary = resultSummary(call?.name, text, hasImage);
  return fixed(`  ⎿ ${summary ? terminalSafe(summary) : style.green("ok")}\n`);
}

/** The first lines of command output, clipped to the width, then how many lines were left out. */
function bashOutput(text: string, style: Style): Block {
  const lines = text.replace(/\n+$/, "").split("\n");
  if (lines.length === 1 && lines[0].trim() === "") return () => `  ⎿ ${style.dim("(no output)")}\n`;
  // Only what is shown is kept, not the whole output.
  const shown = lines.slice(0, BASH_LINES_SHOWN).map((l) => withoutUiMarks(terminalSafe(l)));
  const hidden = lines.length - shown.length;
  return (columns) => {
    let out = "";
    shown.forEach((l, i) => {
      out += `${i === 0 ? "  ⎿ " : "    "}${clipEnd(l, Math.max(10, columns - 5))}\n`;
    });
    if (hidden > 0) out += `    ${style.dim(`… +${hidden} line${hidden === 1 ? "" : "s"} hidden`)}\n`;
    return out;
  };
}

/** A path as the user would type it: relative to the working directory when inside it. */
function shownPath(filePath: string, cwd: string): string {
  const rel = relative(cwd, filePath);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : filePath;
}

/** The text of a tool result's content (a string or content blocks). */
export function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b) =>
      b && typeof b === "object" && (b as { type?: string }).type === "text"
        ? (b as { text: string }).text
        : "",
    )
    .join("\n");
}
