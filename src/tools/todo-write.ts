/**
 * The TodoWrite tool (the Claude Agent SDK's shape): the model keeps its task list by sending the
 * whole list each time. The host sees the list in the `tool_use` block of the SDK stream (and in
 * `details`); the session keeps the latest list so the result can say what changed.
 */
import { defineTool } from "./define-tool.js";
import { jsonSchema } from "./tool-schema.js";
import type { ToolSessionState } from "./types.js";

/** One entry of the model's task list. */
export interface TodoItem {
  content: string;
  status: "pending" | "in_progress" | "completed";
  activeForm: string;
}
/** Input of the TodoWrite tool. */
export interface TodoWriteInput {
  todos: TodoItem[];
}

const inputSchema = jsonSchema<TodoWriteInput>(
  {
    type: "object",
    properties: {
      todos: {
        type: "array",
        items: {
          type: "object",
          properties: {
            content: {
              type: "string",
              minLength: 1,
              description: "The task, in the imperative: 'Run the tests'",
            },
            status: { type: "string", enum: ["pending", "in_progress", "completed"] },
            activeForm: {
              type: "string",
              minLength: 1,
              description: "The task in the present continuous, shown while it runs: 'Running the tests'",
            },
          },
          required: ["content", "status", "activeForm"],
        },
        description: "The updated todo list",
      },
    },
    required: ["todos"],
  },
  { removeAdditional: true },
);

/** Structured result of TodoWrite, for programs: the list before and after the call. */
export interface TodoWriteDetails {
  oldTodos: TodoItem[];
  newTodos: TodoItem[];
}

// Per session, never global: the state object is the session's.
const lists = new WeakMap<ToolSessionState, TodoItem[]>();

/** The session's current todo list (empty before the first TodoWrite). */
function currentTodos(state: ToolSessionState): readonly TodoItem[] {
  return lists.get(state) ?? [];
}

const DESCRIPTION = `Use this tool to create and manage a structured task list for your current session. It helps you track progress, organize complex tasks, and show the user how the work is going.

When to use it:
- A task needs 3 or more distinct steps, or the user gives you several tasks at once.
- The user asks for a todo list.
- After new instructions arrive: capture them as todos.

When not to use it: a single, trivial task, or a purely conversational request.

How to use it:
- Send the whole list each time; it replaces the previous one.
- Each todo has content (imperative: "Run tests"), activeForm (present continuous: "Running tests") and a status: pending, in_progress or completed.
- Keep exactly one task in_progress while you work; mark it completed as soon as it is done, not in batches.
- Only mark a task completed when it is fully done (tests pass, nothing left unfinished).`;

/** The TodoWrite tool. */
export const todoWriteTool = defineTool<TodoWriteInput, TodoWriteDetails>({
  name: "TodoWrite",
  description: DESCRIPTION,
  inputSchema,
  // It only changes the session's own list: safe to run alongside anything, and allowed in plan mode.
  sideEffect: "none",
  execute: (input, ctx) => {
    const oldTodos = [...currentTodos(ctx.state)];
    const newTodos = input.todos.map((t) => ({ ...t }));
    // A list where everything is done is finished: the next call starts a fresh one.
    lists.set(ctx.state, newTodos.every((t) => t.status === "completed") ? [] : newTodos);
    const inProgress = newTodos.filter((t) => t.status === "in_progress").length;
    const note =
      inProgress > 1
        ? ` Note: ${inProgress} tasks are in_progress; keep exactly one in progress at a time.`
        : "";
    return {
      content: `Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable.${note}`,
      details: { oldTodos, newTodos },
    };
  },
});

/** The list as a compact checklist, one line per todo: `☐ pending`, `◐ in progress`, `☒ done`. */
export function formatTodoChecklist(todos: ReadonlyArray<Partial<TodoItem>>): string[] {
  return todos.map((t) => {
    const mark = t.status === "completed" ? "☒" : t.status === "in_progress" ? "◐" : "☐";
    const text = t.status === "in_progress" ? (t.activeForm ?? t.content) : t.content;
    return `${mark} ${String(text ?? "")}`;
  });
}
