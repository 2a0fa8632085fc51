/**
 * Shows a resumed session's conversation, so the user sees where it left off: prompts, answers (as
 * markdown), tool calls and their results drawn as the live session drew them (`tool-output.ts`,
 * `tool-summary.ts`). Only the last messages are shown; the rest is counted.
 */
import type { Message } from "../../index.js";
import { formatToolResult, type ToolCallInfo } from "../render/tool-output.js";
import { toolCallLabel, toolCallLine } from "../render/tool-summary.js";
import type { Style } from "../style.js";
import { terminalSafe, withoutUiMarks } from "../terminal/safe-text.js";

/** Messages shown when replaying; earlier ones are counted in one line. */
export const REPLAYED = 20;

/**
 * The replay as terminal text; `markdown` renders an answer. `omitted` earlier messages were left
 * out by the caller already (they are counted with the rest).
 */
export function replayTranscript(
  messages: Message[],
  style: Style,
  cwd: string,
  markdown: (text: string) => string,
  omitted = 0,
  columns = 80,
): string {
  const shown = messages.slice(-REPLAYED);
  const calls = new Map<string, ToolCallInfo>();
  let out = "";
  const earlier = messages.length - shown.length + omitted;
  if (earlier > 0) out += style.dim(`… ${earlier} earlier messages\n`);
  for (const m of shown) {
    if (m.role === "user") {
      const blocks = typeof m.content === "string" ? [{ type: "text" as const, text: m.content }] : m.content;
      for (const b of blocks) {
        if (b.type === "text" && b.text.trim() !== "") {
          const [first, ...rest] = terminalSafe(b.text).split("\n");
          out += `${style.bold(">")} ${first}\n${rest.map((l) => `  ${l}\n`).join("")}`;
        } else if (b.type === "tool_result") {
          const call = calls.get(b.tool_use_id);
          out += formatToolResult(call, b.content, b.isError === true, style, cwd)(columns);
        }
      }
    } else {
      for (const b of m.content) {
        if (b.type === "text" && b.text.trim() !== "") out += withoutUiMarks(markdown(terminalSafe(b.text)));
        else if (b.type === "tool_use") {
          const input = (b.input ?? {}) as Record<string, unknown>;
          calls.set(b.id, { name: b.name, input, label: toolCallLabel(b.name, b.input, cwd) });
          out += toolCallLine(b.name, b.input, cwd, style);
        }
      }
    }
  }
  return out;
}
