/**
 * The built-in tools by name, so options can say `tools: ['Read', 'Bash']`. When no list is given the
 * core set is on: the six file and shell tools of Claude Code, Bash's background companions, and
 * TodoWrite and ExitPlanMode (on by default, as in Claude Code's `claude_code` preset).
 */
import { bashTool } from "./bash.js";
import { bashOutputTool } from "./bash-output.js";
import { editTool } from "./edit.js";
import { exitPlanModeTool } from "./exit-plan-mode.js";
import { globTool } from "./glob.js";
import { grepTool } from "./grep.js";
import { killShellTool } from "./kill-shell.js";
import { notebookEditTool } from "./notebook-edit.js";
import { readTool } from "./read.js";
import { todoWriteTool } from "./todo-write.js";
import type { Tool } from "./types.js";
import { writeTool } from "./write.js";

/** Every built-in tool, keyed by the name the model sees. */
export const builtinTools: Readonly<Record<string, Tool>> = Object.freeze({
  Bash: bashTool,
  BashOutput: bashOutputTool,
  KillShell: killShellTool,
  Read: readTool,
  Write: writeTool,
  Edit: editTool,
  Glob: globTool,
  Grep: grepTool,
  TodoWrite: todoWriteTool,
  ExitPlanMode: exitPlanModeTool,
  NotebookEdit: notebookEditTool,
});

/** Names of the tools on by default. */
export const DEFAULT_TOOL_NAMES: readonly string[] = Object.freeze(Object.keys(builtinTools));

/**
 * Resolves a mixed list of built-in names and tool objects. An unknown name is an error that lists
 * the names that exist; a later tool with the same name replaces an earlier one.
 */
export function resolveTools(spec: ReadonlyArray<string | Tool> | undefined): Tool[] {
  const list = spec ?? DEFAULT_TOOL_NAMES;
  const byName = new Map<string, Tool>();
  for (const entry of list) {
    if (typeof entry === "string") {
      const tool = builtinTools[entry];
      if (!tool) {
        throw new Error(
          `Unknown built-in tool "${entry}". Built-in tools: ${DEFAULT_TOOL_NAMES.join(", ")}.`,
        );
      }
      byName.set(tool.name, tool);
    } else byName.set(entry.name, entry);
  }
  return [...byName.values()];
}
