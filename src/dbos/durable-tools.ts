/**
 * Tool calls as durable steps, run at most once.
 *
 * A call of a tool with side effects is two steps: a "started" marker that records which execution
 * of the workflow started it (a nonce made fresh each time the workflow function runs), then the
 * call itself, whose checkpoint is the result. A replay returns the checkpoint and never runs the
 * tool again. When a worker died during the call, the marker was recorded by the dead execution and
 * the call step has no checkpoint: the new execution sees a nonce that is not its own and answers
 * the call "interrupted" (as a resumed CLI session does) instead of running it a second time.
 * Tools that only read local state (`sideEffect: "none"`) and tools named idempotent are simply run
 * again; they need no marker.
 *
 * Each checkpoint also carries what the call added to the session's read-file records, so Write and
 * Edit after a replayed Read still know the file was read, and the spill file a Bash call stored
 * (`durable-spill.ts`), so a Read of it works on any worker.
 */
import { INTERRUPTED_TOOL_RESULT } from "../session/repair.js";
import type { FileSnapshot, Tool, ToolContext, ToolResult } from "../tools/types.js";
import type { SpillRecord, SpillShelf } from "./durable-spill.js";
import type { EngineGuard } from "./engine-guard.js";
import { boundResult, type OutputStore } from "./payload-limit.js";

/** What a tool step records. */
type ToolCheckpoint =
  | { ok: true; result: ToolResult; readFiles?: Array<[string, FileSnapshot]>; spill?: SpillRecord }
  | { ok: false; message: string; readFiles?: Array<[string, FileSnapshot]> };

/** Options of `durableTools`. */
export interface DurableToolOptions {
  /** This execution of the workflow function (fresh each time it runs, never replayed). */
  executionNonce: string;
  /** Tools that may run again after a crash mid-call (besides those with `sideEffect: "none"`). */
  idempotentTools?: readonly string[];
  /** Runs the steps; an engine error stops the session instead of becoming the call's result. */
  guard: EngineGuard;
  /** Bytes a call's result may take in its checkpoint; longer ones are cut (`payload-limit.ts`). */
  payloadLimitBytes: number;
  /** Where a cut result's whole text is kept. */
  storeOutput: OutputStore;
  /** Keeps Bash's spill files readable by any worker (none: they stay on the worker's disk). */
  spills?: SpillShelf;
  /**
   * Goat's built-in tools among `tools`: their calls keep their own time rules. Wrapped, every tool
   * is a tool object of the host's to the runtime, which gives those without a `timeoutMs` the
   * session's `toolTimeoutMs` (10 minutes).
   */
  builtIn?: ReadonlySet<Tool>;
}

/** What a wrapped tool needs besides the tool. */
interface StepSettings {
  /** The wrapped tool's time limit: its own (an MCP server's `toolTimeoutMs`), 0 for a built-in. */
  timeoutMs?: number;
  nonce: string;
  rerunnable: boolean;
  guard: EngineGuard;
  limitBytes: number;
  storeOutput: OutputStore;
  spills?: SpillShelf;
}

/** Wraps each tool so its calls are steps. */
export function durableTools(tools: readonly Tool[], options: DurableToolOptions): Tool[] {
  const idempotent = new Set(options.idempotentTools ?? []);
  return tools.map((tool) =>
    durableTool(tool, {
      timeoutMs: tool.timeoutMs ?? (options.builtIn?.has(tool) ? 0 : undefined),
      nonce: options.executionNonce,
      rerunnable: tool.sideEffect === "none" || idempotent.has(tool.name),
      guard: options.guard,
      limitBytes: options.payloadLimitBytes,
      storeOutput: options.storeOutput,
      spills: options.spills,
    }),
  );
}

function durableTool(tool: Tool, settings: StepSettings): Tool {
  const { nonce, rerunnable, guard } = settings;
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    jsonSchema: tool.jsonSchema,
    sideEffect: tool.sideEffect,
    ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
    ...(tool.resourceKey ? { resourceKey: tool.resourceKey.bind(tool) } : {}),
    async execute(input, ctx) {
      // A rerunnable call takes its step number here, before any await: side-effect-free calls run
      // together, and only this keeps their numbers in the order the loop began them.
      const startedBy = rerunnable ? nonce : await guard.step(async () => nonce, `tool-start:${tool.name}`);
      const outcome = await guard.step(async (): Promise<ToolCheckpoint> => {
        if (startedBy !== nonce) {
          return { ok: true, result: { content: INTERRUPTED_TOOL_RESULT, isError: true } };
        }
        return runAndRecord(tool, input, ctx, settings);
      }, `tool:${tool.name}`);
      for (const [path, snapshot] of outcome.readFiles ?? []) ctx.state.readFiles.set(path, snapshot);
      if (outcome.ok && outcome.spill) settings.spills?.remember(outcome.spill);
      if (!outcome.ok) throw new Error(outcome.message);
      return outcome.result;
    },
  };
}

async function runAndRecord(
  tool: Tool,
  input: unknown,
  ctx: ToolContext,
  settings: StepSettings,
): Promise<ToolCheckpoint> {
  const before = new Map(ctx.state.readFiles);
  const changes = () => {
    const changed: Array<[string, FileSnapshot]> = [];
    for (const [path, snapshot] of ctx.state.readFiles) {
      const old = before.get(path);
      if (old === undefined || old.mtimeMs !== snapshot.mtimeMs || old.size !== snapshot.size) {
        changed.push([path, { mtimeMs: snapshot.mtimeMs, size: snapshot.size }]);
      }
    }
    return changed.length > 0 ? { readFiles: changed } : {};
  };
  try {
    const { spills } = settings;
    const ran = await tool.execute(spills ? await spills.localInput(tool.name, input, ctx) : input, ctx);
    const kept = spills && tool.name === "Bash" ? await spills.keep(ran, ctx) : { result: ran };
    const result = await boundResult(
      kept.result,
      settings.limitBytes,
      settings.storeOutput,
      tool.name,
      ctx.toolUseId,
    );
    return { ok: true, result: storable(result), ...changes(), ...(kept.spill ? { spill: kept.spill } : {}) };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error), ...changes() };
  }
}

/** The result as plain JSON; `details` that do not survive JSON (cycles, BigInt) are dropped. */
function storable(result: ToolResult): ToolResult {
  const base: ToolResult = { content: result.content, ...(result.isError ? { isError: true } : {}) };
  if (result.details === undefined) return base;
  try {
    return { ...base, details: JSON.parse(JSON.stringify(result.details)) };
  } catch {
    return base;
  }
}
