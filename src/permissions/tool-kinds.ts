/**
 * Which built-in tools read files and which edit them, and where each keeps its path. Path rules and
 * the directory scope only apply to these; `Read(...)` rules also govern Glob and Grep and `Edit(...)`
 * rules govern every tool that edits files, as in Claude Code.
 */

/** Tools that read local files, with the input field that names the file or the search root. */
export const FILE_READ_TOOLS: Readonly<Record<string, string>> = {
  Read: "file_path",
  Glob: "path",
  Grep: "path",
  LS: "path",
  NotebookRead: "notebook_path",
};

/** Tools that change local files, with the input field that names the file. */
export const FILE_EDIT_TOOLS: Readonly<Record<string, string>> = {
  Write: "file_path",
  Edit: "file_path",
  MultiEdit: "file_path",
  NotebookEdit: "notebook_path",
};

/** Tools whose path field may be left out, meaning "search the working directory". */
export const DEFAULTS_TO_CWD: ReadonlySet<string> = new Set(["Glob", "Grep", "LS"]);

/** True for tools that read files (Read, Glob, Grep, …). */
export function isFileReadTool(toolName: string): boolean {
  return Object.hasOwn(FILE_READ_TOOLS, toolName);
}

/** True for tools that edit files (Write, Edit, …). */
export function isFileEditTool(toolName: string): boolean {
  return Object.hasOwn(FILE_EDIT_TOOLS, toolName);
}

/** True for tools that take a path rule: `Read(./src/**)`, `Edit(//etc/**)`, `Write(...)`, … */
export function takesPathRule(toolName: string): boolean {
  return isFileReadTool(toolName) || isFileEditTool(toolName);
}

/**
 * The tool names a path rule written for `ruleTool` governs: a Read rule covers every reading tool,
 * an Edit rule every editing tool; any other path rule only its own tool.
 */
export function toolsGovernedBy(ruleTool: string): readonly string[] {
  if (ruleTool === "Read") return Object.keys(FILE_READ_TOOLS);
  if (ruleTool === "Edit") return Object.keys(FILE_EDIT_TOOLS);
  return [ruleTool];
}

/**
 * The tools that start a subagent (Goat's `Task`, and `Agent`, its name in Claude Code 2.x). Starting one
 * needs no approval: every call the subagent makes goes through the same permission engine, one by one.
 * Claude Code's tool reference says the same ("Agent … Permission required: No").
 */
const SUBAGENT_TOOLS: ReadonlySet<string> = new Set(["Task", "Agent"]);

/** True for the tools that start a subagent, whose own calls are each checked. */
export function isSubagentTool(toolName: string): boolean {
  return SUBAGENT_TOOLS.has(toolName);
}

/**
 * True for the tools of MCP servers (`mcp__<server>__<tool>`). What such a tool does is only what its
 * server says (its `readOnlyHint` and other annotations are the server's claims, not facts Goat can
 * check), so no mode lets one run without asking: a rule must name it, its server, or the user must say yes.
 */
export function isMcpTool(toolName: string): boolean {
  return toolName.startsWith("mcp__");
}
