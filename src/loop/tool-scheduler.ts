/**
 * Runs the tool calls of one assistant message.
 *
 * Order of each call: find the tool → arguments parse → schema → beforeToolCall (hooks, permissions)
 * → execute → afterToolCall. Calls whose tools have no side effects run concurrently; a mutating call
 * waits for every call before it and holds back every call after it (two mutating calls with
 * different resource keys may overlap). Results always come back in the order the model asked, one
 * per call, whatever happened: an unknown tool, bad input, a denial, a throw or an abort each produce
 * an `isError` result.
 *
 * With `orderedToolStarts` (durable sessions) only side-effect-free calls run together, and call i
 * begins (its hooks, its permission check, then its execution) only once call i-1 has begun executing
 * or has ended without running: the order in which executions start is the model's, whatever the
 * hooks' timing, so a replay numbers its steps as the first run did.
 */
import type { ToolResultBlock, ToolUseBlock } from "../llm/types.js";
import type { ConfinementLevel } from "../sandbox/confinement.js";
import { executeValidated, validateToolInput } from "../tools/define-tool.js";
import type { Tool, ToolResult } from "../tools/types.js";
import type { LoopConfig, PermissionDenial, ToolCallInfo } from "./loop-config.js";
import { frameToolContent } from "./model-framing.js";

/** What a batch produced. */
export interface ToolBatchOutcome {
  results: ToolResultBlock[];
  /** Context from hooks for the model's next call. */
  additionalContext: string[];
  /** Set when a hook or a permission answer asked to end the run. */
  stopReason?: string;
  /** True when the stop came from a permission answer with `interrupt: true` (an interrupt, not a hook). */
  interrupted?: boolean;
  /** True when calls were skipped because a steering message arrived. */
  steered: boolean;
  permissionDenials: PermissionDenial[];
}

/** Runs all calls and returns one result per call, in the model's order. */
export async function runToolBatch(
  calls: ToolUseBlock[],
  config: LoopConfig,
  signal: AbortSignal,
): Promise<ToolBatchOutcome> {
  const outcome: ToolBatchOutcome = {
    results: [],
    additionalContext: [],
    steered: false,
    permissionDenials: [],
  };
  const toolsByName = new Map(config.tools.map((t) => [t.name, t]));
  if (calls.length === 1) {
    // The common batch: nothing to order or limit, so none of the scheduling promises below.
    outcome.results = [await runOneCall(calls[0], toolsByName.get(calls[0].name), config, signal, outcome)];
    return outcome;
  }
  const limit = Math.max(1, config.toolConcurrency ?? 10);
  let running = 0;
  const waiting: Array<() => void> = [];
  const acquire = async () => {
    if (running < limit) {
      running++;
      return;
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };

  const ordered = config.orderedToolStarts === true;
  const done: Array<Promise<void>> = [];
  // In order: resolved when call i has begun executing or has ended (then call i+1 may begin).
  let previousBegun: Promise<void> = Promise.resolve();
  const results: ToolResultBlock[] = new Array(calls.length);
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i];
    const deps = dependenciesOf(i, calls, toolsByName, config.cwd, ordered).map((j) => done[j]);
    const afterPrevious = previousBegun;
    let begin: (() => void) | undefined;
    if (ordered) previousBegun = new Promise<void>((resolve) => (begin = resolve));
    done.push(
      (async () => {
        await Promise.all(deps);
        if (ordered) await afterPrevious;
        await acquire();
        try {
          results[i] = await runOneCall(call, toolsByName.get(call.name), config, signal, outcome, begin);
        } finally {
          begin?.();
          release();
        }
      })(),
    );
  }
  await Promise.all(done);
  outcome.results = results;
  return outcome;
}

/**
 * Indices of earlier calls that call `i` must wait for. `ordered`: every call with any side effect
 * runs alone (a durable call of one is two steps, whose numbers concurrent calls would interleave).
 */
function dependenciesOf(
  i: number,
  calls: ToolUseBlock[],
  tools: Map<string, Tool>,
  cwd: string,
  ordered: boolean,
): number[] {
  const deps: number[] = [];
  const exclusive = (tool: Tool | undefined) =>
    !tool || tool.sideEffect === "mutating" || (ordered && tool.sideEffect !== "none");
  const mine = tools.get(calls[i].name);
  const mutating = exclusive(mine);
  const myKey = mutating && !ordered ? keyOf(mine, calls[i], cwd) : undefined;
  for (let j = 0; j < i; j++) {
    const other = tools.get(calls[j].name);
    const otherMutating = exclusive(other);
    if (!mutating && !otherMutating) continue;
    if (mutating && otherMutating && myKey !== undefined) {
      const otherKey = keyOf(other, calls[j], cwd);
      if (otherKey !== undefined && otherKey !== myKey) continue;
    }
    deps.push(j);
  }
  return deps;
}

function keyOf(tool: Tool | undefined, call: ToolUseBlock, cwd: string): string | undefined {
  if (!tool?.resourceKey) return undefined;
  try {
    return tool.resourceKey(call.input as never, { cwd });
  } catch {
    return undefined;
  }
}

/**
 * One call, never throwing: a failure in an extension point (a hook adapter, a permission callback)
 * still answers the call, so the transcript keeps a result for every tool_use.
 */
async function runOneCall(
  call: ToolUseBlock,
  tool: Tool | undefined,
  config: LoopConfig,
  signal: AbortSignal,
  outcome: ToolBatchOutcome,
  beginExecution?: () => void,
): Promise<ToolResultBlock> {
  try {
    return await runOneCallUnguarded(call, tool, config, signal, outcome, beginExecution);
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    config.emit({ type: "warning", message: `Handling the ${call.name} call failed: ${text}` });
    return errorResult(call, `${call.name} could not be run: ${text}`);
  }
}

async function runOneCallUnguarded(
  call: ToolUseBlock,
  tool: Tool | undefined,
  config: LoopConfig,
  signal: AbortSignal,
  outcome: ToolBatchOutcome,
  beginExecution?: () => void,
): Promise<ToolResultBlock> {
  // Checked before each start: an abort or an urgent steering message skips calls not yet started.
  if (signal.aborted) return errorResult(call, "Interrupted by the user: this tool call was not run.");
  if (outcome.stopReason) return errorResult(call, `Not run: the run is stopping (${outcome.stopReason}).`);
  if (config.steeringInterruptsTools?.()) {
    outcome.steered = true;
    return errorResult(call, "Skipped: the user sent a new message before this tool call started.");
  }
  if (!tool) {
    const names = config.tools.map((t) => t.name).join(", ");
    return errorResult(call, `Unknown tool "${call.name}". Available tools: ${names || "(none)"}.`);
  }
  if (call.parse_error !== undefined) {
    return errorResult(
      call,
      `The arguments of this ${call.name} call were not valid JSON (${call.parse_error}). Arguments received: ${truncate(call.raw_input ?? "", 500)}. Call ${call.name} again with a JSON object.`,
    );
  }
  const checked = await validateToolInput(tool, call.input);
  if (!checked.ok) return errorResult(call, checked.message);

  let input = checked.value as Record<string, unknown>;
  const info: ToolCallInfo = { call, tool, input, signal };
  let confinement: ConfinementLevel | undefined;
  if (config.beforeToolCall) {
    const decision = await config.beforeToolCall(info);
    if (decision.action === "deny") {
      if (decision.additionalContext) outcome.additionalContext.push(decision.additionalContext);
      if (decision.permissionDenial) {
        outcome.permissionDenials.push({ tool_name: call.name, tool_use_id: call.id, tool_input: input });
        config.emit({
          type: "permission_denied",
          toolUseId: call.id,
          name: call.name,
          input,
          message: decision.message,
        });
      }
      if (decision.interrupt) {
        outcome.stopReason = `the user denied ${call.name} and asked to stop`;
        outcome.interrupted = decision.permissionDenial === true;
      }
      return errorResult(call, decision.message);
    }
    if (decision.additionalContext) outcome.additionalContext.push(decision.additionalContext);
    confinement = decision.confine;
    if (decision.input !== input) {
      // A hook or the permission callback replaced the input: check what it gave, as the model's was.
      const again = await validateToolInput(tool, decision.input);
      if (!again.ok)
        return errorResult(
          call,
          `The input a hook or permission callback supplied is invalid. ${again.message}`,
        );
      input = again.value as Record<string, unknown>;
    }
    info.input = input;
  }

  // Lets the next call begin; it can only go on after this synchronous run into `execute` (where a
  // durable tool takes its step's number) has returned.
  beginExecution?.();
  const started = Date.now();
  config.emit({ type: "tool_execution_start", toolUseId: call.id, name: call.name, input });
  const limitMs = config.toolTimeoutOf?.(tool);
  // Only a tool with a time limit pays for its own signal and timer.
  const limit = limitMs ? createTimeLimit(signal, limitMs) : undefined;
  let result: ToolResult = await untilInterrupted(
    executeValidated(tool, input, {
      signal: limit?.signal ?? signal,
      cwd: config.cwd,
      sessionId: config.sessionId,
      toolUseId: call.id,
      state: config.toolState,
      env: config.env ?? process.env,
      fullDetails: config.wantsFullDetails?.(call.name),
      ...(confinement ? { confinement } : {}),
      fileScope: config.fileScope,
      onUpdate: (update) =>
        config.emit({
          type: "tool_execution_update",
          toolUseId: call.id,
          name: call.name,
          update,
          elapsedMs: Date.now() - started,
        }),
    }),
    signal,
    call.name,
    limit,
  );
  if (config.afterToolCall) {
    const after = await config.afterToolCall({ ...info, result, isError: result.isError === true });
    if (after.result) result = after.result;
    if (after.additionalContext) outcome.additionalContext.push(after.additionalContext);
    if (after.stopReason && !outcome.stopReason) outcome.stopReason = after.stopReason;
  }
  const isError = result.isError === true;
  config.emit({
    type: "tool_execution_end",
    toolUseId: call.id,
    name: call.name,
    input,
    result,
    isError,
    durationMs: Date.now() - started,
  });
  return {
    type: "tool_result",
    tool_use_id: call.id,
    // The host saw the output as it is (the event above); the model sees it framed (model-framing.ts).
    content: frameToolContent(result.content),
    ...(isError ? { isError: true } : {}),
  };
}

/** How long an interrupted tool gets to return its own result before the loop answers for it. */
const INTERRUPT_GRACE_MS = 50;

/** A tool call's time limit: its own signal (aborted by the run's or by the timer) and the timer's promise. */
interface TimeLimit {
  signal: AbortSignal;
  ms: number;
  /** Resolves when the limit is hit. */
  reached: Promise<void>;
  clear(): void;
}

function createTimeLimit(runSignal: AbortSignal, ms: number): TimeLimit {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const reached = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`time limit of ${ms} ms reached`));
      resolve();
    }, ms);
  });
  return {
    signal: AbortSignal.any([runSignal, controller.signal]),
    ms,
    reached,
    clear: () => clearTimeout(timer),
  };
}

/**
 * Resolves with the tool's result; once the run's signal aborts, with an "interrupted" result after a
 * short grace (a tool that ignores its signal cannot hold an interrupt up); once the call's time limit
 * is hit, at once with a time-limit error (the tool's signal is aborted so it stops its work).
 */
function untilInterrupted(
  work: Promise<ToolResult>,
  signal: AbortSignal,
  name: string,
  limit?: TimeLimit,
): Promise<ToolResult> {
  const interrupted: ToolResult = {
    content: `${name} was interrupted by the user before it finished.`,
    isError: true,
  };
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const settle = (result: ToolResult) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      limit?.clear();
      signal.removeEventListener("abort", onAbort);
      resolve(result);
    };
    const onAbort = () => {
      timer = setTimeout(() => settle(interrupted), INTERRUPT_GRACE_MS);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    limit?.reached.then(() => {
      if (!signal.aborted) settle(timeLimitResult(name, limit.ms));
    });
    work.then(settle);
  });
}

function timeLimitResult(name: string, ms: number): ToolResult {
  const span =
    ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`;
  return {
    content: `${name} did not finish within its time limit of ${span} and was stopped. Try a smaller request, or another way to get the result.`,
    isError: true,
  };
}

/** An error result for a call that never ran (or could not). */
export function errorResult(call: ToolUseBlock, text: string): ToolResultBlock {
  // Such a message may quote the call's input or a hook's reason: framed like any tool output.
  return { type: "tool_result", tool_use_id: call.id, content: frameToolContent(text), isError: true };
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
