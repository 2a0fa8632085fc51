/**
 * Short one-line forms of tool calls and results for the terminal: `Bash(npm test)`,
 * `Read(src/a.ts)`, and the first line of a result. A call's label is escaped exactly, as the
 * permission question shows calls (`terminal/safe-text.ts`): padding is counted (`[300 spaces]`), so
 * a clipped label still shows what follows it; the question itself shows the whole call.
 */
import { relative } from "node:path";
import type { Style } from "../style.js";
import { terminalSafe } from "../terminal/safe-text.js";

const MAX = 80;

function clip(s: string, max = MAX): string {
  const line = s.replace(/\s*\n\s*/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** `Name(main argument)`: the argument the user recognises (command, path, pattern), clipped. */
export function toolCallLabel(name: string, input: unknown, cwd: string): string {
  const i = (input ?? {}) as Record<string, unknown>;
  const path = (p: unknown) => {
    if (typeof p !== "string") return undefined;
    const rel = relative(cwd, p);
    return rel && !rel.startsWith("..") ? rel : p;
  };
  const main =
    (typeof i.command === "string" ? i.command : undefined) ??
    path(i.file_path) ??
    (typeof i.pattern === "string" ? i.pattern : undefined) ??
    path(i.path) ??
    (typeof i.bash_id === "string" ? i.bash_id : undefined) ??
    (typeof i.shell_id === "string" ? i.shell_id : undefined) ??
    // WebFetch(https://…) and WebSearch("query"): what the call sends out is what the user checks.
    (typeof i.url === "string" ? i.url : undefined) ??
    (typeof i.query === "string" ? JSON.stringify(i.query) : undefined);
  const exact = (s: string) => terminalSafe(s, { mode: "exact" });
  if (main !== undefined) return `${exact(name)}(${clip(exact(main))})`;
  const json = JSON.stringify(input ?? {});
  return json === "{}" ? exact(name) : `${exact(name)}(${clip(exact(json))})`;
}

/**
 * The line that announces a tool call, live and in a resumed session alike: `● Bash(npm test)`, with
 * the call's own description when it gives one (`· Run the tests`).
 */
export function toolCallLine(name: string, input: unknown, cwd: string, style: Style): string {
  const description = (input as { description?: unknown } | null)?.description;
  const about =
    typeof description === "string" && description.trim() !== ""
      ? style.dim(` · ${clip(terminalSafe(description), 60)}`)
      : "";
  return `${style.cyan("●")} ${style.bold(toolCallLabel(name, input, cwd))}${about}\n`;
}

/**
 * What a successful result says in a few words, as Claude Code shows it: `Read 3 lines`,
 * `Found 4 files`; otherwise the first line of the result.
 */
export function resultSummary(toolName: string | undefined, text: string, hasImage = false): string {
  if (toolName === "Read") {
    if (hasImage) return "Read image";
    const lines = text.split("\n").filter((l) => /^\s*\d+(?:→|\t)/.test(l)).length;
    if (lines > 0) return `Read ${lines} line${lines === 1 ? "" : "s"}`;
  }
  if (toolName === "Glob" && !text.startsWith("No files found")) {
    const files = text.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("(")).length;
    return `Found ${files} file${files === 1 ? "" : "s"}`;
  }
  return firstResultLine(text);
}

/** The first non-empty line of a tool result's content (a string or content blocks). */
export function firstResultLine(content: unknown): string {
  let text = "";
  if (typeof content === "string") text = content;
  else if (Array.isArray(content)) {
    text = content
      .map((b) =>
        b && typeof b === "object" && (b as { type?: string }).type === "text"
          ? (b as { text: string }).text
          : "",
      )
      .join("\n");
  }
  const line = text.split("\n").find((l) => l.trim() !== "") ?? "";
  return clip(line, 100);
}
