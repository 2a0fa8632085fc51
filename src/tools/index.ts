/**
 * `goat-agent/tools`: the tool contract and the built-in tools, for programs that assemble their own
 * tool lists, run a tool outside the loop, or wrap a built-in one. `defineTool` and `jsonSchema` are also
 * exported from the root, as the same functions.
 *
 * @example
 * import { createBashTool, readTool, runTool } from "goat-agent/tools";
 * const tools = [readTool, createBashTool({ sandbox })];
 */

// ---- Defining and running tools ----

export type { JsonSchemaValidationOptions } from "../schema/json-schema-validator.js";
export type { ShapeToolSpec, ToolInputSchema, ToolSpec, ValidationOutcome } from "./define-tool.js";
export { defineTool, runTool, toJsonSchema, validateToolInput } from "./define-tool.js";
export { InvalidToolError } from "./errors.js";
export type { ToolFilter, ToolRegistry } from "./registry.js";
export { createToolRegistry } from "./registry.js";
export type { InferShape, JsonSchemaInput, StandardShape } from "./tool-schema.js";
export { jsonSchema } from "./tool-schema.js";
export type {
  FileScope,
  FileSnapshot,
  SideEffect,
  Tool,
  ToolContent,
  ToolContext,
  ToolResult,
  ToolSessionState,
} from "./types.js";
export { createToolSessionState, disposeToolSessionState } from "./types.js";

// ---- The built-in tools ----

export type { BashDetails, BashInput, BashToolOptions } from "./bash.js";
export { bashTool, createBashTool } from "./bash.js";
export type { BashOutputDetails, BashOutputInput } from "./bash-output.js";
export { bashOutputTool } from "./bash-output.js";
export { builtinTools, DEFAULT_TOOL_NAMES, resolveTools } from "./builtin.js";
export type { EditDetails, EditInput } from "./edit.js";
export { editTool } from "./edit.js";
export type { EditPlan } from "./edit-match.js";
export { planEdit } from "./edit-match.js";
export type { ExitPlanModeInput } from "./exit-plan-mode.js";
export { exitPlanModeTool } from "./exit-plan-mode.js";
export type { GlobDetails, GlobInput } from "./glob.js";
export { globTool } from "./glob.js";
export type { GrepBackendChoice, GrepInput, GrepToolOptions } from "./grep.js";
export { createGrepTool, grepTool } from "./grep.js";
export type { GrepDetails, GrepMode } from "./grep-format.js";
export type { KillShellInput } from "./kill-shell.js";
export { killShellTool } from "./kill-shell.js";
export type { NotebookEditDetails, NotebookEditInput } from "./notebook-edit.js";
export { notebookEditTool } from "./notebook-edit.js";
export type { ReadDetails, ReadInput } from "./read.js";
export { formatReadText, READ_DEFAULT_LINES, readTool } from "./read.js";
export type { TodoItem, TodoWriteDetails, TodoWriteInput } from "./todo-write.js";
export { formatTodoChecklist, todoWriteTool } from "./todo-write.js";
export type { WriteDetails, WriteInput } from "./write.js";
export { writeTool } from "./write.js";
export type { WriteTargetError } from "./write-target.js";
export { checkWriteTarget } from "./write-target.js";

// ---- The web tools and their search backends ----

export type { ResolveHost } from "./web/address-guard.js";
export {
  createSearchBackend,
  type WebSearchBackend,
  WebSearchConfigError,
  type WebSearchOption,
  type WebSearchRequest,
  type WebSearchResult,
} from "./web/search-backend.js";
export {
  createWebFetchTool,
  type SmallModel,
  type WebFetchDetails,
  type WebFetchInput,
  type WebFetchOptions,
  webFetchTool,
} from "./web/web-fetch.js";
export { createWebSearchTool, type WebSearchDetails, type WebSearchInput } from "./web/web-search.js";

// ---- Helpers the file and shell tools are built from: atomic writes, the processes they started ----

export { type AtomicWriteOptions, writeFileAtomic } from "./atomic-write.js";
export { killTrackedGroups, killTrackedGroupsNow } from "./process-tree.js";
