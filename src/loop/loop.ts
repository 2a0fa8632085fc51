/**
 * The agent loop: one run, from the user's input until the model is done or a limit is hit.
 *
 * Read it top to bottom: `agentLoop` is the whole lifecycle of a run, each phase a named helper
 * below it. The outer loop re-enters for follow-up messages; the inner loop is one model call and
 * the tools it asked for. State is passed as parameters; nothing is hidden in `this`.
 */
import { isProviderError, ProviderError } from "../llm/errors.js";
import type {
  AssistantMessage,
  Message,
  StopReason,
  ToolDefinition,
  ToolResultBlock,
  ToolUseBlock,
  Usage,
} from "../llm/types.js";
import { addUsage, emptyUsage, toolCallsOf } from "../llm/types.js";
import type { Tool } from "../tools/types.js";
import { compactSession } from "./compact-session.js";
import {
  defaultConvertToLlm,
  estimateContextTokens,
  finalText,
  type LoopSession,
  recordUsage,
} from "./context.js";
import type { AgentMessage, ExitReason, TurnEndReason } from "./events.js";
import type { LoopConfig, PermissionDenial } from "./loop-config.js";
import { systemReminder } from "./model-framing.js";
import {
  chargeModelCalls,
  hasParentStopConditions,
  parentBudgetSpent,
  parentLimitReached,
  parentStopConditionMet,
} from "./parent-run.js";
import { type StepResult, shouldStop } from "./stop-conditions.js";
import { errorResult, runToolBatch, type ToolBatchOutcome } from "./tool-scheduler.js";

/** How a run ended and what it did. */
export interface RunOutcome {
  exitReason: ExitReason;
  /** Model calls made in this run. */
  numTurns: number;
  steps: StepResult[];
  /** The model's stop reason on its last call, if it answered. */
  stopReason: StopReason | null;
  /** The final answer's text. */
  resultText: string;
  /** What went wrong, for error exits. */
  errors: string[];
  /** Time spent waiting for the model, in milliseconds. */
  apiDurationMs: number;
  /** This run's usage and cost (the session keeps the running totals). */
  usage: Usage;
  costUsd: number;
  /** Calls permissions refused in this run. */
  permissionDenials: PermissionDenial[];
}

/** Tells the loop whether an abort of its signal was an interrupt (vs the caller's own abort). */
export interface RunControl {
  interrupted: () => boolean;
}

const MAX_CONSECUTIVE_COMPACTION_FAILURES = 3;
const CONTINUE_AFTER_MAX_TOKENS =
  "Your last response was cut off because it reached the output token limit, so any tool call in it was not run. Continue from where you stopped, and split large outputs (such as big file writes) into smaller steps.";

interface RunState {
  config: LoopConfig;
  session: LoopSession;
  signal: AbortSignal;
  control: RunControl;
  steps: StepResult[];
  turns: number;
  apiMs: number;
  usage: Usage;
  costUsd: number;
  errors: string[];
  denials: PermissionDenial[];
  lastStopReason: StopReason | null;
  compactionFailures: number;
  maxTokensRetried: boolean;
  /** The step whose context overflow was already recovered from (recovery is tried once per step: a history that cannot shrink enough must not loop). */
  overflowRecoveredStep: number;
  lastCallCost: number;
  /** The session's cost when the run began: the run's cost counts every call made since (subagents', tools'). */
  sessionCostAtStart: number;
}

/**
 * Runs the loop for one input (a prompt, tool results of a resumed session, or nothing to continue)
 * and resolves when the run has ended. Never throws for model or tool failures: they end the run
 * with an `error` exit reason and the message in `errors`.
 */
export async function agentLoop(
  config: LoopConfig,
  session: LoopSession,
  input: AgentMessage[],
  signal: AbortSignal,
  control: RunControl = { interrupted: () => false },
): Promise<RunOutcome> {
  const run: RunState = {
    config,
    session,
    signal,
    control,
    steps: [],
    turns: 0,
    apiMs: 0,
    usage: emptyUsage(),
    costUsd: 0,
    errors: [],
    denials: [],
    lastStopReason: null,
    compactionFailures: 0,
    maxTokensRetried: false,
    overflowRecoveredStep: 0,
    lastCallCost: 0,
    sessionCostAtStart: session.totalCostUsd,
  };
  session.run = { modelCalls: 0, stopRequested: false, steps: run.steps, costAtStart: session.totalCostUsd };
  config.emit({ type: "agent_start", sessionId: config.sessionId });
  appendMessages(run, input);

  try {
    for (;;) {
      for (;;) {
        const limit = checkTermination(run);
        if (limit) return finishRun(run, limit);

        const prepared = await prepareContext(run);
        if (prepared.exit) return finishRun(run, prepared.exit);
        if (estimatedCallWouldExceedBudget(run, prepared.tokens)) return finishRun(run, "max_budget");
        // Checked again and charged in one synchronous step: subagents side by side share the turns.
        const lastCheck = checkTermination(run);
        if (lastCheck) return finishRun(run, lastCheck);
        chargeModelCalls(session, 1);

        const step = run.turns + 1;
        config.emit({ type: "turn_start", step });
        const answer = await callModel(run, prepared.messages, step);
        if (answer.kind === "retry_after_compaction") {
          chargeModelCalls(session, -1); // the same turn, asked again after compaction
          continue;
        }
        if (answer.kind === "failed") {
          config.emit({
            type: "turn_end",
            step,
            message: answer.partial,
            toolResults: [],
            reason: answer.turnEnd,
          });
          return finishRun(run, answer.exit);
        }
        const message = answer.message;
        const calls = message.truncated ? [] : toolCallsOf(message);

        if (message.stop_reason === "max_tokens") {
          const exit = await handleMaxTokens(run, message, step);
          if (exit) return finishRun(run, exit);
          continue;
        }

        if (calls.length > 0 && budgetSpent(run)) {
          // This answer took the run over its budget: its tools must not run, yet each call is answered.
          answerUnrun(run, step, message, calls, budgetExhaustedText(run));
          return finishRun(run, "max_budget");
        }

        if (calls.length > 0) {
          await config.persistBarrier?.();
          config.state.set("tool_executing", step);
          // Recorded before the tools run: a subagent's check of this run's stopWhen counts this step.
          const recorded = recordStep(run, step, message, []);
          const batch = await runToolBatch(calls, config, signal);
          appendToolResults(run, batch);
          recorded.toolResults = batch.results;
          if (batch.permissionDenials.length > 0) run.denials.push(...batch.permissionDenials);
          const reason: TurnEndReason = signal.aborted
            ? "aborted"
            : batch.steered
              ? "steering"
              : "tools_executed";
          config.emit({ type: "turn_end", step, message, toolResults: batch.results, reason });
          if (signal.aborted) return finishRun(run, abortReason(run));
          if (batch.stopReason) {
            run.errors.push(batch.stopReason);
            return finishRun(run, batch.interrupted ? "interrupted" : "hook");
          }
          if (hasStopConditions(run) && (await stopConditionMet(run))) return finishRun(run, "predicate");
          await deliverSteering(run);
          continue;
        }

        recordStep(run, step, message, []);
        config.emit({ type: "turn_end", step, message, toolResults: [], reason: "complete" });
        if (message.stop_reason === "stop_sequence") return finishRun(run, "stop_sequence");
        if (hasStopConditions(run) && (await stopConditionMet(run))) return finishRun(run, "predicate");
        if (await stopHookContinues(run)) continue;
        if (await deliverSteering(run)) continue;
        break;
      }
      // Follow-ups are polled only on a normal end (never after an error or abort).
      const followUps = (await config.getFollowUpMessages?.()) ?? [];
      if (followUps.length === 0) return finishRun(run, "end_turn");
      appendMessages(run, followUps);
    }
  } catch (error) {
    // Only a bug in an extension point (a hook adapter, a transform) reaches here.
    run.errors.push(`Unexpected error in the loop: ${errorText(error)}`);
    return finishRun(run, signal.aborted ? abortReason(run) : "error");
  }
}

// ---- Phases -------------------------------------------------------------------------------------

/**
 * Whether the run must end before the next model call. The first reason found is the one reported, so
 * an abort always wins over a limit: abort, then maxTurns (model calls of this run and its subagents),
 * then maxBudgetUsd, then a stop asked by a subagent, then the limits of the parent run of a subagent.
 */
function checkTermination(run: RunState): ExitReason | undefined {
  const { config, session } = run;
  if (run.signal.aborted) return abortReason(run);
  const calls = session.run?.modelCalls ?? run.turns;
  if (config.maxTurns !== undefined && config.maxTurns > 0 && calls >= config.maxTurns) return "max_turns";
  if (ownBudgetSpent(run)) return "max_budget";
  if (session.run?.stopRequested) return "predicate";
  if (!session.parentRun) return undefined;
  const parent = parentLimitReached(session);
  if (!parent) return undefined;
  run.errors.push(parent.message);
  return parent.exit;
}

function ownBudgetSpent(run: RunState): boolean {
  const budget = run.config.maxBudgetUsd;
  return budget !== undefined && run.session.totalCostUsd >= budget;
}

/** This run's budget, or (for a subagent) a parent's, is spent. */
function budgetSpent(run: RunState): boolean {
  return ownBudgetSpent(run) || (run.session.parentRun !== undefined && parentBudgetSpent(run.session));
}

function budgetExhaustedText(run: RunState): string {
  const spent = run.session.totalCostUsd.toFixed(4);
  return `Budget exhausted: not run, because the answer that asked for it took the session to $${spent}, past its budget of $${run.config.maxBudgetUsd} (maxBudgetUsd).`;
}

/** Answers every call of `message` without running it (the pairing stays intact) and ends the turn. */
function answerUnrun(
  run: RunState,
  step: number,
  message: AssistantMessage,
  calls: ToolUseBlock[],
  text: string,
): void {
  const results = calls.map((call) => errorResult(call, text));
  appendToolResults(run, { results, additionalContext: [], steered: false, permissionDenials: [] });
  recordStep(run, step, message, results);
  run.config.emit({ type: "turn_end", step, message, toolResults: results, reason: "tools_executed" });
}

/** Proactive compaction, then `transformContext`, then `convertToLlm` (always in that order). */
async function prepareContext(
  run: RunState,
): Promise<{ messages: Message[]; tokens: number; exit?: ExitReason }> {
  const { config, session } = run;
  let tokens = estimateContextTokens(session, config.systemPrompt);
  const window = config.contextWindowOf?.(config.getModel());
  const reserve =
    config.compactionReserveTokens ?? Math.min(20_000 + (config.maxTokens ?? 8192), (window ?? 0) / 4);
  if (config.compact && window && tokens > window - reserve) {
    const ok = await compactHistory(run, "auto");
    if (!ok && run.compactionFailures >= MAX_CONSECUTIVE_COMPACTION_FAILURES)
      return { messages: [], tokens, exit: "error" };
    tokens = estimateContextTokens(session, config.systemPrompt);
  }
  let messages = session.messages;
  if (config.transformContext) messages = await config.transformContext(messages, run.signal);
  const converted = (config.convertToLlm ?? defaultConvertToLlm)(messages);
  // The default conversion is synchronous: no promise turn for it on every call.
  const llm = converted instanceof Promise ? await converted : converted;
  return { messages: llm, tokens };
}

type ModelAnswer =
  | { kind: "ok"; message: AssistantMessage }
  | { kind: "retry_after_compaction" }
  | { kind: "failed"; exit: ExitReason; partial: AssistantMessage; turnEnd: TurnEndReason };

/** Streams one model call, emitting message events; recovers once per turn from context overflow. */
async function callModel(run: RunState, messages: Message[], step: number): Promise<ModelAnswer> {
  const { config, session } = run;
  const model = config.getModel();
  config.state.set("llm_in_flight", step);
  config.emit({ type: "message_start", step });
  const started = Date.now();
  let partialText = "";
  let final: AssistantMessage | undefined;
  // The model whose answer this is: the fallback's, when the primary was unavailable.
  let answeredBy = model;
  try {
    const stream = config.callModel(
      model,
      {
        system: config.systemPrompt,
        messages,
        tools: toolDefinitions(config.tools),
        maxTokens: config.maxTokens,
        temperature: config.temperature,
        stopSequences: config.stopSequences,
        thinkingBudget: config.getThinkingBudget?.(),
        ...config.getReasoning?.(model),
        signal: run.signal,
      },
      (info) => {
        config.state.set("retry_wait", step);
        config.emit({ type: "retry", ...info });
      },
      (fallback, cause) => {
        answeredBy = fallback;
        config.emit({
          type: "warning",
          message: `${model} is unavailable (${cause.kind}); the fallback model ${fallback} answers this call.`,
        });
      },
    );
    for await (const event of stream) {
      if (event.type === "text_delta") partialText += event.delta;
      else if (event.type === "message_end") final = event.message;
      config.state.set("llm_in_flight", step);
      config.emit({ type: "message_update", step, event });
    }
    if (!final)
      throw new ProviderError({
        kind: "stream",
        provider: model,
        message: "The stream ended without a final message.",
      });
  } catch (error) {
    run.apiMs += Date.now() - started;
    return await modelFailure(run, error, partialText, step, model);
  }
  run.apiMs += Date.now() - started;
  run.turns++;
  const usage = final.usage ?? emptyUsage();
  const cost = config.costOf(answeredBy, usage);
  run.costUsd += cost;
  run.lastCallCost = cost;
  addUsage(run.usage, usage);
  recordUsage(session, answeredBy, usage, cost, {
    contextWindow: config.contextWindowOf?.(answeredBy),
    maxOutputTokens: config.maxOutputTokensOf?.(answeredBy),
  });
  session.lastCallUsage = usage;
  run.lastStopReason = final.stop_reason ?? null;
  // An assistant message with nothing in it is rejected by providers on the next call.
  const message =
    final.content.length > 0 ? final : { ...final, content: [{ type: "text" as const, text: "" }] };
  appendMessages(run, [message]);
  session.lastCallMessageCount = session.messages.length;
  config.state.set("step_finished", step);
  config.emit({ type: "message_end", step, message, costUsd: cost });
  return { kind: "ok", message };
}

async function modelFailure(
  run: RunState,
  error: unknown,
  partialText: string,
  step: number,
  model: string,
): Promise<ModelAnswer> {
  const { config } = run;
  const aborted = run.signal.aborted || (isProviderError(error) && error.kind === "aborted");
  // Keep what was already said, without any half-written tool call, so the history stays valid.
  const partial: AssistantMessage = {
    role: "assistant",
    content: partialText ? [{ type: "text", text: partialText }] : [],
    model,
    stop_reason: aborted ? "aborted" : "error",
    error_message: errorText(error),
    error_kind: isProviderError(error) ? error.kind : "unknown",
  };
  if (partialText) appendMessages(run, [partial]);
  config.emit({ type: "message_end", step, message: partial, costUsd: 0 });
  if (aborted) return { kind: "failed", exit: abortReason(run), partial, turnEnd: "aborted" };

  if (isProviderError(error) && error.kind === "context_overflow" && run.overflowRecoveredStep !== step) {
    // Recover from overflow at most once per turn, so a history that cannot shrink enough never loops.
    run.overflowRecoveredStep = step;
    if (!partialText && (await compactHistory(run, "overflow"))) return { kind: "retry_after_compaction" };
  }
  run.errors.push(describeProviderError(error));
  return { kind: "failed", exit: "error", partial, turnEnd: "error" };
}

/** A cut-off answer: never run its tool calls; ask once to continue (compacting first if needed). */
async function handleMaxTokens(
  run: RunState,
  message: AssistantMessage,
  step: number,
): Promise<ExitReason | undefined> {
  const { config } = run;
  recordStep(run, step, message, []);
  config.emit({ type: "turn_end", step, message, toolResults: [], reason: "complete" });
  const calls = toolCallsOf(message);
  if (calls.length > 0) {
    // The stored message keeps the half-written calls out: they were never run and have no results.
    const cleaned = { ...message, content: message.content.filter((b) => b.type !== "tool_use") };
    if (cleaned.content.length === 0) cleaned.content = [{ type: "text", text: "(output cut off)" }];
    const index = run.session.messages.lastIndexOf(message);
    if (index >= 0) run.session.messages[index] = cleaned;
  }
  if (run.maxTokensRetried) return "max_tokens";
  run.maxTokensRetried = true;
  appendMessages(run, [{ role: "user", content: CONTINUE_AFTER_MAX_TOKENS }]);
  return undefined;
}

/** The loop's compactions: three failures in a row end the run (each is a warning until then). */
async function compactHistory(run: RunState, trigger: "auto" | "overflow"): Promise<boolean> {
  const { config } = run;
  try {
    const compacted = await compactSession(config, run.session, { trigger, signal: run.signal });
    if (compacted) run.compactionFailures = 0;
    return compacted;
  } catch (error) {
    run.compactionFailures++;
    const message = `Compaction failed (${run.compactionFailures} in a row): ${errorText(error)}`;
    config.emit({ type: "warning", message });
    if (run.compactionFailures >= MAX_CONSECUTIVE_COMPACTION_FAILURES) run.errors.push(message);
    return false;
  }
}

function appendToolResults(run: RunState, batch: ToolBatchOutcome): void {
  const content: Array<ToolResultBlock | { type: "text"; text: string }> = [...batch.results];
  for (const text of batch.additionalContext) content.push({ type: "text", text: systemReminder(text) });
  appendMessages(run, [{ role: "user", content }]);
}

/** Steering messages wait for the turn boundary; returns true when some were delivered. */
async function deliverSteering(run: RunState): Promise<boolean> {
  const steering = (await run.config.getSteeringMessages?.()) ?? [];
  if (steering.length === 0) return false;
  appendMessages(run, steering);
  return true;
}

function hasStopConditions(run: RunState): boolean {
  const own = run.config.stopWhen !== undefined && run.config.stopWhen.length > 0;
  return own || (run.session.parentRun !== undefined && hasParentStopConditions(run.session));
}

/** This run's stop conditions, then (for a subagent) its parent's on the steps of both. */
async function stopConditionMet(run: RunState): Promise<boolean> {
  const onError = (error: unknown, index: number) =>
    run.config.emit({
      type: "warning",
      message: `stopWhen[${index}] threw and was treated as "don't stop": ${errorText(error)}`,
    });
  const conditions = run.config.stopWhen ?? [];
  if (conditions.length > 0 && (await shouldStop(conditions, run.steps, onError))) return true;
  if (!run.session.parentRun) return false;
  if (!(await parentStopConditionMet(run.session, run.steps, onError))) return false;
  run.errors.push("The parent agent's stop condition (stopWhen) was met.");
  return true;
}

/** The Stop hook point: a hook may keep the loop going with a reason that becomes the next message. */
async function stopHookContinues(run: RunState): Promise<boolean> {
  const outcome = await run.config.onStop?.(run.signal);
  if (!outcome?.continueWith) return false;
  appendMessages(run, [{ role: "user", content: outcome.continueWith }]);
  return true;
}

function finishRun(run: RunState, exitReason: ExitReason): RunOutcome {
  const { config, session } = run;
  // A parent's limit has already said which limit it was.
  if (exitReason === "max_turns" && run.errors.length === 0)
    run.errors.push(`Reached the maximum number of turns (${config.maxTurns}).`);
  if (exitReason === "max_budget" && run.errors.length === 0)
    run.errors.push(`Reached the maximum budget ($${config.maxBudgetUsd}).`);
  if (exitReason === "interrupted" && run.errors.length === 0) run.errors.push("Interrupted by the user.");
  if (exitReason === "interrupted") appendMessages(run, [interruptionMark(session.messages)]);
  if (exitReason === "aborted" && run.errors.length === 0) run.errors.push("Aborted by the caller's signal.");
  if (exitReason === "max_tokens")
    run.errors.push("The model's answer was cut off at the output token limit twice.");
  config.state.set("idle");
  config.emit({
    type: "agent_end",
    messages: session.messages,
    exitReason,
    error: run.errors.join("\n") || undefined,
  });
  return {
    exitReason,
    numTurns: run.turns,
    steps: run.steps,
    stopReason: run.lastStopReason,
    resultText: finalText(session.messages),
    errors: run.errors,
    apiDurationMs: run.apiMs,
    usage: run.usage,
    costUsd: session.totalCostUsd - run.sessionCostAtStart,
    permissionDenials: run.denials,
  };
}

// ---- Small helpers ------------------------------------------------------------------------------

function appendMessages(run: RunState, messages: AgentMessage[]): void {
  for (const message of messages) {
    run.session.messages.push(message);
    run.config.onMessage?.(message);
    if (message.role !== "assistant") run.config.emit({ type: "message_appended", message });
  }
}

function recordStep(
  run: RunState,
  step: number,
  message: AssistantMessage,
  toolResults: ToolResultBlock[],
): StepResult {
  const usage = message.usage ?? emptyUsage();
  const recorded: StepResult = {
    step,
    message,
    toolCalls: toolCallsOf(message),
    toolResults,
    usage,
    costUsd: run.lastCallCost,
    totalCostUsd: run.costUsd,
  };
  run.steps.push(recorded);
  return recorded;
}

/**
 * Goes beyond the Claude Agent SDK, which overshoots the budget by a whole call: before calling, the
 * input the call will send is priced, and the run stops if that alone would pass the budget.
 */
function estimatedCallWouldExceedBudget(run: RunState, tokens: number): boolean {
  const budget = run.config.maxBudgetUsd;
  if (budget === undefined) return false;
  const estimate = run.config.costOf(run.config.getModel(), {
    input_tokens: tokens,
    output_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
  });
  return run.session.totalCostUsd + estimate > budget;
}

/** Definitions per tool list: the list is the same array from call to call unless the tool set changed. */
const definitionCache = new WeakMap<readonly Tool[], ToolDefinition[]>();
function toolDefinitions(tools: readonly Tool[]): ToolDefinition[] {
  let definitions = definitionCache.get(tools);
  if (!definitions) {
    definitions = tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.jsonSchema,
    }));
    definitionCache.set(tools, definitions);
  }
  return definitions;
}

/**
 * The user text Claude Code records when the user interrupts, so the model sees on the next call that
 * its turn was cut short and the next prompt is not read as a continuation of the interrupted one.
 */
const INTERRUPTED_MARK = "[Request interrupted by user]";
/** The mark after an interrupt during tool calls. */
const INTERRUPTED_TOOL_MARK = "[Request interrupted by user for tool use]";

function interruptionMark(messages: AgentMessage[]): AgentMessage {
  const last = messages[messages.length - 1];
  const duringTools =
    last?.role === "user" &&
    Array.isArray(last.content) &&
    last.content.some((b) => b.type === "tool_result");
  return { role: "user", content: duringTools ? INTERRUPTED_TOOL_MARK : INTERRUPTED_MARK };
}

function abortReason(run: RunState): ExitReason {
  return run.control.interrupted() ? "interrupted" : "aborted";
}

function describeProviderError(error: unknown): string {
  if (isProviderError(error)) {
    // Most messages already start with the provider's name (and an HTTP error's with its status):
    // each said once, "anthropic rate_limit (429, rate_limit_error): …".
    const { provider, kind, status } = error;
    let text = error.message;
    let detail = status ? `${status}` : "";
    const apiError = `${provider} API error ${status} `;
    if (status && text.startsWith(apiError.trimEnd())) {
      text = text.slice(apiError.length - 1);
      const type = /^ \(([^)]*)\)/.exec(text);
      if (type) {
        detail += `, ${type[1]}`;
        text = text.slice(type[0].length);
      }
      text = text.replace(/^: /, "");
    } else if (text.startsWith(`${provider}: `)) text = text.slice(provider.length + 2);
    return `${provider} ${kind}${detail ? ` (${detail})` : ""}: ${text}`;
  }
  return errorText(error);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
