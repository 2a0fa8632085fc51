/**
 * A bound on what one tool step records. A tool result is stored in the step's checkpoint, then in
 * the transcript, the SDK message log and the model's next request: a 100 MB output took 52 s and
 * 400 MB. Over the limit (1 MB by default), the whole text is stored once in `tool_outputs` (in
 * PostgreSQL, so any worker can read it after a takeover), and the step records the text cut to
 * its head and tail as in-process Bash cuts a long output, with a line naming where the whole is.
 * `details` (for programs, never read by the model) are dropped from such a result.
 */
import type pg from "pg";
import { MAX_OUTPUT_CHARS } from "../tools/command-output.js";
import type { ToolResult } from "../tools/types.js";
import { nameUuid } from "./replay-store.js";
import { quoteIdent } from "./schema.js";

/** Default bytes of a tool step's checkpoint: about 1 MB. */
export const DEFAULT_STEP_PAYLOAD_BYTES = 1024 * 1024;

/** Stores a whole output once and returns its id. */
export type OutputStore = (toolName: string, toolUseId: string, text: string) => Promise<string>;

/** An `OutputStore` writing `schema.tool_outputs`; ids derive from the workflow and the call. */
export function postgresOutputStore(pool: pg.Pool, schemaName: string, workflowId: string): OutputStore {
  const table = `${quoteIdent(schemaName)}.tool_outputs`;
  return async (toolName, toolUseId, text) => {
    const id = nameUuid(`${workflowId}:output:${toolUseId}`);
    await pool.query(
      `INSERT INTO ${table} (output_id, workflow_id, tool_name, bytes, content)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (output_id) DO NOTHING`,
      [id, workflowId, toolName, Buffer.byteLength(text), text],
    );
    return id;
  };
}

/** Reads a stored output (undefined when there is none of that id). */
export async function readStoredOutput(
  pool: pg.Pool,
  schemaName: string,
  outputId: string,
): Promise<string | undefined> {
  const { rows } = await pool.query<{ content: string }>(
    `SELECT content FROM ${quoteIdent(schemaName)}.tool_outputs WHERE output_id = $1`,
    [outputId],
  );
  return rows[0]?.content;
}

/** `result` within `limitBytes`: unchanged when it fits, else cut with its whole text stored. */
export async function boundResult(
  result: ToolResult,
  limitBytes: number,
  store: OutputStore,
  toolName: string,
  toolUseId: string,
): Promise<ToolResult> {
  if (approximateBytes(result) <= limitBytes) return result;
  const text =
    typeof result.content === "string"
      ? result.content
      : result.content.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join("\n");
  const id = await store(toolName, toolUseId, text);
  // The model's share stays MAX_OUTPUT_CHARS, as Bash gives it, whatever the byte limit (a smaller
  // limit wins, so a limit under 30 kB is still met).
  const keep = Math.max(0, Math.min(MAX_OUTPUT_CHARS, Math.floor(limitBytes / 4)) - 200);
  const head = text.slice(0, Math.ceil(keep / 2));
  const tail = text.slice(text.length - Math.floor(keep / 2));
  const note = `[Output too long (${text.length.toLocaleString("en-US")} characters, ${Buffer.byteLength(text).toLocaleString("en-US")} bytes): cut to its start and end. The whole output is stored in the session database as tool output ${id}.]`;
  return {
    content: `${head}\n…\n${tail}\n${note}`,
    ...(result.isError ? { isError: true } : {}),
  };
}

/** Bytes of the result's JSON, without building a string the size of a huge output twice. */
function approximateBytes(result: ToolResult): number {
  const contentBytes =
    typeof result.content === "string"
      ? Buffer.byteLength(result.content)
      : result.content.reduce(
          (sum, b) => sum + (b.type === "text" ? Buffer.byteLength(b.text) : JSON.stringify(b).length),
          0,
        );
  let detailBytes = 0;
  if (result.details !== undefined) {
    try {
      detailBytes = JSON.stringify(result.details)?.length ?? 0;
    } catch {
      detailBytes = 0;
    }
  }
  return contentBytes + detailBytes;
}
