/**
 * The tool calls of a turn on screen: each call as `● Name(input)` when the model makes it (the task
 * list as a checklist, a plan whole as markdown), the status line naming what runs, a denial on one
 * line, and each call's outcome below it when its result arrives.
 */
import type { SDKUserMessage } from "../../index.js";
import { formatTodoChecklist } from "../../tools/index.js";
import type { Style } from "../style.js";
import { terminalSafe } from "../terminal/safe-text.js";
import type { Screen } from "../terminal/screen.js";
import { clipEnd } from "../terminal/text-width.js";
import type { AnswerPrinter } from "./answer-printer.js";
import type { StatusLine } from "./status-line.js";
import { formatToolResult, type ToolCallInfo } from "./tool-output.js";
import { toolCallLabel, toolCallLine } from "./tool-summary.js";

/** A `tool_use` block of an assistant message. */
interface ToolUse {
  id: string;
  name: string;
  input: unknown;
}

/** The turn's tool calls, as the renderer reports them. */
export interface ToolCallsView {
  /** The model made a call: shown and marked running. */
  called(block: ToolUse): void;
  /** A call reported progress (one the model's message did not show, as a subagent's). */
  progress(id: string, toolName: string): void;
  /** A call was denied: the denial is shown now, its result is not. */
  denied(id: string, message: string, cancelled: boolean): void;
  /** The results of a user message; `cancelled` (the user interrupted) shows none. */
  results(content: Exclude<SDKUserMessage["message"]["content"], string>, cancelled: boolean): void;
  /** Names the running calls on the status line ("Thinking…" when none runs). */
  showRunning(): void;
  /** How many calls run now. */
  readonly running: number;
  /** The turn ended: nothing runs, nothing is denied. */
  turnEnded(): void;
}

/** Creates the view; `line` prints a line of Goat's own. */
export function createToolCallsView(
  screen: Screen,
  style: Style,
  status: StatusLine,
  cwd: string,
  answer: AnswerPrinter,
  line: (text: string) => void,
): ToolCallsView {
  const calls = new Map<string, ToolCallInfo>();
  const running = new Set<string>();
  const denied = new Set<string>();

  const showRunning = () => {
    const ids = [...running];
    if (ids.length === 0) {
      status.show("Thinking…");
      return;
    }
    const last = calls.get(ids[ids.length - 1]);
    status.show(`${last?.label ?? "tool"}${ids.length > 1 ? ` (+${ids.length - 1} more)` : ""}`);
  };

  const called = (block: ToolUse) => {
    if (block.name === "TodoWrite") {
      // The task list as a checklist instead of a JSON label; its result line adds nothing.
      printTodos(block.input, style, line);
      calls.set(block.id, { name: block.name, input: {}, label: "Update Todos", quiet: true });
    } else if (block.name === "ExitPlanMode") {
      // The plan is what the user is asked to approve: show it whole, as markdown.
      const plan = (block.input as { plan?: unknown })?.plan;
      line(`${style.cyan("●")} ${style.bold("Plan")}`);
      answer.printWhole(terminalSafe(typeof plan === "string" ? plan : ""));
      calls.set(block.id, { name: block.name, input: {}, label: "ExitPlanMode" });
    } else {
      const label = toolCallLabel(block.name, block.input, cwd);
      calls.set(block.id, { name: block.name, input: block.input as Record<string, unknown>, label });
      screen.endLine();
      screen.print(toolCallLine(block.name, block.input, cwd, style));
    }
    running.add(block.id);
  };

  return {
    called,
    progress(id, toolName) {
      if (!calls.has(id)) calls.set(id, { name: toolName, input: {}, label: terminalSafe(toolName) });
      running.add(id);
      showRunning();
    },
    denied(id, message, cancelled) {
      denied.add(id);
      // One line: the call is named above it, and the model gets the whole reason.
      if (!cancelled) screen.printBlock((columns) => `${clipEnd(denialLine(message, style), columns - 1)}\n`);
    },
    results(content, cancelled) {
      for (const block of content) {
        if (block.type !== "tool_result") continue;
        running.delete(block.tool_use_id);
        const call = calls.get(block.tool_use_id);
        calls.delete(block.tool_use_id);
        // A denial was said once already; an interrupted call is told by the turn's end.
        if (denied.has(block.tool_use_id) || cancelled) continue;
        if (call?.quiet && block.is_error !== true) continue;
        screen.printBlock(formatToolResult(call, block.content, block.is_error === true, style, cwd));
      }
    },
    showRunning,
    get running() {
      return running.size;
    },
    turnEnded() {
      running.clear();
      denied.clear();
    },
  };
}

/** TodoWrite's task list as a checklist, the completed tasks dimmed. */
function printTodos(input: unknown, style: Style, line: (text: string) => void): void {
  const todos = (input as { todos?: unknown })?.todos;
  const items = Array.isArray(todos) ? todos.filter((t) => t && typeof t === "object") : [];
  line(`${style.cyan("●")} ${style.bold("Update Todos")}`);
  for (const [i, item] of formatTodoChecklist(items).entries())
    line(
      `  ${i === 0 ? "⎿" : " "} ${items[i].status === "completed" ? style.dim(terminalSafe(item)) : terminalSafe(item)}`,
    );
}

/**
 * `⎿ denied: <why>` in few words: the engine's reason without its "Permission to use … was denied"
 * preamble (the call is named on the line above) or its advice for SDK callers.
 */
function denialLine(message: string, style: Style): string {
  let why = terminalSafe(message.split("\n")[0])
    .replace(/^Permission to use .*? was denied(?::\s*)?/, "")
    .replace(/\s*To allow it, .*$/, "")
    .replace(/\.$/, "")
    .trim();
  if (why === "") why = terminalSafe(message.split("\n")[0]);
  return `  ⎿ ${style.red("denied")}${why.startsWith("by ") ? " " : ": "}${why}`;
}
