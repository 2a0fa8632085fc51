/**
 * How a Goat tool call looks to an ACP client: its kind (the editor's icon), a title, the files it
 * touches (so the editor can follow along) and, for edits, a diff. Pure functions of the call's name
 * and input; the input is the model's and may be anything, so every field is checked before use.
 */
import type { PlanEntry, ToolCallContent, ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";

/** The ACP view of one tool call, sent in its `tool_call` update. */
export interface ToolCallView {
  title: string;
  kind: ToolKind;
  locations: ToolCallLocation[];
  content: ToolCallContent[];
}

const KINDS: Record<string, ToolKind> = {
  Bash: "execute",
  BashOutput: "execute",
  KillShell: "execute",
  Read: "read",
  Write: "edit",
  Edit: "edit",
  MultiEdit: "edit",
  NotebookEdit: "edit",
  Glob: "search",
  Grep: "search",
  WebFetch: "fetch",
  WebSearch: "fetch",
  TodoWrite: "think",
  Task: "think",
  ExitPlanMode: "switch_mode",
};

/** The view of a call of `name` with `input`. */
export function toolCallView(name: string, input: unknown): ToolCallView {
  const fields = isRecord(input) ? input : {};
  const path = text(fields.file_path) ?? text(fields.notebook_path) ?? text(fields.path);
  return {
    title: toolTitle(name, fields, path),
    kind: KINDS[name] ?? "other",
    locations: path !== undefined ? [{ path, ...lineOf(fields) }] : [],
    content: editDiff(name, fields, path),
  };
}

function toolTitle(name: string, input: Record<string, unknown>, path: string | undefined): string {
  const command = text(input.command);
  if (name === "Bash" && command !== undefined) return oneLine(command);
  const pattern = text(input.pattern);
  if ((name === "Grep" || name === "Glob") && pattern !== undefined) return `${name} ${oneLine(pattern)}`;
  const url = text(input.url) ?? text(input.query);
  if ((name === "WebFetch" || name === "WebSearch") && url !== undefined) return `${name} ${oneLine(url)}`;
  const description = text(input.description);
  if (name === "Task" && description !== undefined) return `Task: ${oneLine(description)}`;
  return path !== undefined ? `${name} ${path}` : name;
}

/** Write and Edit as diffs (the editor shows them in place); nothing for other tools. */
function editDiff(name: string, input: Record<string, unknown>, path: string | undefined): ToolCallContent[] {
  if (path === undefined) return [];
  if (name === "Write") {
    const content = text(input.content);
    return content === undefined ? [] : [{ type: "diff", path, oldText: null, newText: content }];
  }
  if (name === "Edit") {
    const oldText = text(input.old_string);
    const newText = text(input.new_string);
    if (oldText === undefined || newText === undefined) return [];
    return [{ type: "diff", path, oldText, newText }];
  }
  return [];
}

/** Read's `offset` is the first line read: the editor can scroll there. */
function lineOf(input: Record<string, unknown>): { line?: number } {
  return typeof input.offset === "number" && Number.isInteger(input.offset) && input.offset > 0
    ? { line: input.offset }
    : {};
}

/** TodoWrite's list as an ACP plan; undefined when the input is not a list of todos. */
export function planOfTodos(input: unknown): PlanEntry[] | undefined {
  if (!isRecord(input) || !Array.isArray(input.todos)) return undefined;
  const entries: PlanEntry[] = [];
  for (const todo of input.todos) {
    if (!isRecord(todo) || text(todo.content) === undefined) continue;
    const status = todo.status === "in_progress" || todo.status === "completed" ? todo.status : "pending";
    entries.push({ content: String(todo.content), status, priority: "medium" });
  }
  return entries;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** A title is one line: a multi-line command shows its first line and an ellipsis. */
function oneLine(value: string): string {
  const first = value.split("\n", 1)[0];
  const short = first.length > 200 ? `${first.slice(0, 200)}…` : first;
  return short.length < value.length ? `${short.replace(/…$/, "")}…` : short;
}
