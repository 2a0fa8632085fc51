/**
 * The built-in tools by name, so options can say `tools: ['Read', 'Bash']`. When no list is given the
 * core set is on: the six file and shell tools of Claude Code, Bash's background companions,
 * TodoWrite, ExitPlanMode, NotebookEdit and WebFetch (on by default, as in Claude Code's `claude_code`
 * preset). WebSearch is a built-in name too, but not in the default set: a session offers it only
 * when a search backend is configured (`webSearch`).
 */
import { InvalidOptionError } from "../errors.js";
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
import { webFetchTool } from "./web/web-fetch.js";
import { unconfiguredWebSearchTool } from "./web/web-search.js";
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
  WebFetch: webFetchTool,
  WebSearch: unconfiguredWebSearchTool,
});

/** Names of the tools on by default (WebSearch joins them in a session with a search backend). */
export const DEFAULT_TOOL_NAMES: readonly string[] = Object.freeze(
  Object.keys(builtinTools).filter((name) => name !== "WebSearch"),
);

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
        throw new InvalidOptionError(
          "tools",
          `Unknown built-in tool "${entry}". Built-in tools: ${Object.keys(builtinTools).join(", ")}.`,
        );
      }
      byName.set(tool.name, tool);
    } else byName.set(entry.name, entry);
  }
  return [...byName.values()];
}
