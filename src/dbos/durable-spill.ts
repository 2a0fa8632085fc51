/**
 * Bash's spill files, readable by any worker. A Bash output past what the model sees inline is saved
 * whole to a file in the session's temp directory on the worker that ran it (`command-output.ts`),
 * and the model is told to page through that file with Read or Grep. After a takeover that file is
 * on the dead worker's disk. So in a durable session the call's step also stores the whole output
 * once in `tool_outputs` (as an over-limit result is, `payload-limit.ts`) and its checkpoint names
 * the pair (path, output id); a later Read or Grep of that path on a worker that lacks the file reads
 * a copy restored from the store into this worker's own session temp directory. The path the model
 * named is only looked up, never created: it may lie in a shared /tmp another user could take.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { sessionTempDir } from "../tools/command-output.js";
import type { ToolContext, ToolResult } from "../tools/types.js";
import type { OutputStore } from "./payload-limit.js";

/** A spill file and the id of its stored copy. */
export type SpillRecord = [path: string, outputId: string];

/** Reads a stored output by id (undefined when there is none). */
export type OutputReader = (outputId: string) => Promise<string | undefined>;

/** The tools whose path argument may name a spill file, and that argument's name. */
const PATH_ARGUMENT: Readonly<Record<string, string>> = { Read: "file_path", Grep: "path" };

/** One session's spill files: stores them, and restores them where they are missing. */
export class SpillShelf {
  readonly #known = new Map<string, string>();
  readonly #restored = new Map<string, string>();
  readonly #store: OutputStore;
  readonly #read: OutputReader;

  constructor(store: OutputStore, read: OutputReader) {
    this.#store = store;
    this.#read = read;
  }

  /** Notes a spill named by a checkpoint (a live call's, or a replayed one's). */
  remember([file, outputId]: SpillRecord): void {
    this.#known.set(file, outputId);
  }

  /**
   * After a Bash call whose whole output went to a spill file: stores the file's text and returns the
   * result with a note naming the stored copy, and the record to checkpoint.
   */
  async keep(result: ToolResult, ctx: ToolContext): Promise<{ result: ToolResult; spill?: SpillRecord }> {
    const file = (result.details as { outputFile?: unknown } | undefined)?.outputFile;
    if (typeof file !== "string" || typeof result.content !== "string") return { result };
    let text: string;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch {
      return { result };
    }
    const outputId = await this.#store("Bash", `${ctx.toolUseId}:spill`, text);
    const note = `The whole output is also stored in the session database as tool output ${outputId}, so Read and Grep of ${file} work on any worker.`;
    return { result: { ...result, content: `${result.content}\n${note}` }, spill: [file, outputId] };
  }

  /**
   * The input of a Read or Grep call with a spill path this worker lacks replaced by a local copy
   * of the stored output; other inputs unchanged.
   */
  async localInput(toolName: string, input: unknown, ctx: ToolContext): Promise<unknown> {
    const argument = PATH_ARGUMENT[toolName];
    if (argument === undefined || this.#known.size === 0) return input;
    const named = (input as Record<string, unknown> | null)?.[argument];
    if (typeof named !== "string") return input;
    const file = path.resolve(ctx.cwd, named);
    const outputId = this.#known.get(file);
    if (outputId === undefined || fs.existsSync(file)) return input;
    let copy = this.#restored.get(outputId);
    if (copy === undefined) {
      const text = await this.#read(outputId);
      if (text === undefined) return input;
      copy = path.join(sessionTempDir(ctx.state, ctx.sessionId), `restored-${path.basename(named)}`);
      fs.writeFileSync(copy, text, { mode: 0o600, flag: "wx" });
      this.#restored.set(outputId, copy);
    }
    return { ...(input as Record<string, unknown>), [argument]: copy };
  }
}
