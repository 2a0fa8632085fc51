/**
 * The NotebookEdit tool (Claude Code's input shape): replaces, inserts or deletes one cell of a Jupyter
 * notebook (.ipynb), found by `cell_id` (the cell's id, or `cell-N` for index N). Needs a prior Read,
 * like Edit, and writes atomically; permissions treat it as a file edit.
 */
import fs from "node:fs/promises";
import { defineTool } from "./define-tool.js";
import { describeFileError, isDirectoryMessage, missingFileMessage } from "./file-errors.js";
import { checkFreshForWrite, recordFileSnapshot } from "./file-state.js";
import { relativePathError, resolveToolPath, toAbsolutePath } from "./paths.js";
import { jsonSchema } from "./tool-schema.js";
import type { ToolResult } from "./types.js";
import { describeWriteError } from "./write.js";
import { openWriteTarget, READ_NO_FOLLOW, replaceTarget, type WriteTarget } from "./write-target.js";

/** Input of the NotebookEdit tool (`edit_mode` filled in: `replace` when the model leaves it out). */
export interface NotebookEditInput {
  notebook_path: string;
  cell_id?: string;
  new_source: string;
  cell_type?: "code" | "markdown";
  edit_mode: "replace" | "insert" | "delete";
}

const inputSchema = jsonSchema<NotebookEditInput>(
  {
    type: "object",
    properties: {
      notebook_path: {
        type: "string",
        description: "The absolute path to the Jupyter notebook file to edit",
      },
      cell_id: {
        description:
          "The ID of the cell to edit (or cell-N for index N). With insert, the new cell goes after it",
        type: "string",
      },
      new_source: { type: "string", description: "The new source for the cell" },
      cell_type: {
        description: "The cell type; required for insert",
        type: "string",
        enum: ["code", "markdown"],
      },
      edit_mode: { default: "replace", type: "string", enum: ["replace", "insert", "delete"] },
    },
    required: ["notebook_path", "new_source"],
  },
  { removeAdditional: true },
);

/** Structured result of NotebookEdit, for programs. */
export interface NotebookEditDetails {
  notebookPath: string;
  editMode: "replace" | "insert" | "delete";
  cellId?: string;
  cellCount: number;
}

/** Claude Code's `NotebookEdit` tool. */
export const notebookEditTool = defineTool<NotebookEditInput, NotebookEditDetails>({
  name: "NotebookEdit",
  description: `Replaces the contents of a specific cell in a Jupyter notebook (.ipynb file) with new source, inserts a new cell, or deletes one.
- notebook_path must be absolute; Read the notebook first.
- cell_id is the cell's id (or cell-N for the cell at index N, 0-based).
- edit_mode=insert adds a new cell after cell_id (at the start when cell_id is omitted) and needs cell_type.
- edit_mode=delete removes the cell.`,
  inputSchema,
  sideEffect: "mutating",
  resourceKey: (input, ctx) => resolveToolPath(input.notebook_path, ctx.cwd),
  async execute(input, ctx): Promise<ToolResult<NotebookEditDetails>> {
    const fail = (content: string): ToolResult<NotebookEditDetails> => ({ content, isError: true });
    const relative = relativePathError(input.notebook_path, ctx.cwd);
    if (relative) return fail(relative);
    const shown = toAbsolutePath(input.notebook_path, ctx.cwd);
    if (!shown.endsWith(".ipynb"))
      return fail(`${shown} is not a Jupyter notebook (.ipynb); use Edit instead.`);
    // The notebook is opened through its checked real directory, so a link changed meanwhile cannot redirect it.
    const target = openWriteTarget(input.notebook_path, ctx, { createDirs: false });
    if ("error" in target) return fail(target.error);
    try {
      return await editNotebook(target, input, ctx);
    } finally {
      target.close();
    }
  },
});

async function editNotebook(
  target: WriteTarget,
  input: NotebookEditInput,
  ctx: Parameters<typeof notebookEditTool.execute>[1],
): Promise<ToolResult<NotebookEditDetails>> {
  const fail = (content: string): ToolResult<NotebookEditDetails> => ({ content, isError: true });
  const { shown, realPath, current } = target;
  if (current === undefined) return fail(missingFileMessage(shown, ctx.cwd));
  if (current.isDirectory()) return fail(isDirectoryMessage(shown));
  if (!current.isFile()) return fail(`${shown} is not a regular file and cannot be edited.`);
  const stale = checkFreshForWrite(ctx.state, realPath, current);
  if (stale) return fail(stale);
  let raw: string;
  try {
    raw = await fs.readFile(target.via, { encoding: "utf8", flag: READ_NO_FOLLOW });
  } catch (err) {
    return fail(describeFileError(err, shown, ctx.cwd));
  }
  let nb: { cells?: unknown; nbformat?: number; nbformat_minor?: number; metadata?: any };
  try {
    nb = JSON.parse(raw);
  } catch {
    return fail(`${shown} is not valid notebook JSON; it was left unchanged.`);
  }
  if (!nb || !Array.isArray(nb.cells)) return fail(`${shown} has no cells array; it was left unchanged.`);
  const cells = nb.cells as Array<Record<string, unknown>>;
  let index = -1;
  if (input.cell_id !== undefined) {
    index = cells.findIndex((c) => c.id === input.cell_id);
    const m = /^cell-(\d+)$/.exec(input.cell_id);
    if (index === -1 && m) index = Number(m[1]) < cells.length ? Number(m[1]) : -1;
    if (index === -1) return fail(`No cell with id "${input.cell_id}" in ${shown} (${cells.length} cells).`);
  } else if (input.edit_mode !== "insert") {
    return fail("cell_id is required to replace or delete a cell.");
  }
  const source = input.new_source;
  let cellId = input.cell_id;
  if (input.edit_mode === "delete") cells.splice(index, 1);
  else if (input.edit_mode === "insert") {
    if (!input.cell_type) return fail("cell_type is required when inserting a cell.");
    // Cell ids exist from nbformat 4.5 on; older notebooks must not get them.
    const withIds = (nb.nbformat ?? 4) > 4 || ((nb.nbformat ?? 4) === 4 && (nb.nbformat_minor ?? 0) >= 5);
    cellId = withIds ? Math.random().toString(36).slice(2, 10) : undefined;
    const cell: Record<string, unknown> = {
      cell_type: input.cell_type,
      ...(cellId ? { id: cellId } : {}),
      metadata: {},
      source,
      ...(input.cell_type === "code" ? { execution_count: null, outputs: [] } : {}),
    };
    cells.splice(index + 1, 0, cell);
  } else {
    const cell = cells[index];
    cell.source = source;
    if (input.cell_type && input.cell_type !== cell.cell_type) cell.cell_type = input.cell_type;
    if (cell.cell_type === "code") {
      // The old outputs belong to the old source.
      cell.execution_count = null;
      cell.outputs = [];
    } else {
      delete cell.outputs;
      delete cell.execution_count;
    }
  }
  try {
    const written = await replaceTarget(target, `${JSON.stringify(nb, null, 1)}\n`, ctx.signal);
    recordFileSnapshot(ctx.state, realPath, written);
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    return fail(`Could not write ${shown}: ${describeWriteError(err)}`);
  }
  const verb =
    input.edit_mode === "delete" ? "Deleted" : input.edit_mode === "insert" ? "Inserted" : "Updated";
  return {
    content: `${verb} cell ${cellId ?? "at the start"} in ${shown}.`,
    details: { notebookPath: shown, editMode: input.edit_mode, cellId, cellCount: cells.length },
  };
}
