/**
 * `goat-agent/loop`: the agentic loop itself, for embedders who wire their own policy instead of using
 * `query()`. Build a `LoopConfig` (the model caller, tools, limits and the extension points: before
 * and after each tool call, the stop point, compaction, persistence) and call `agentLoop` once per run;
 * the history lives in a `LoopSession` that outlives runs. The loop imports no permissions, hooks,
 * sessions or SDK shapes: whatever an extension point leaves out has a working default.
 *
 * @example
 * import { agentLoop, createAgentState, createLoopSession, createModelCaller } from "goat-agent/loop";
 * const session = createLoopSession();
 * const outcome = await agentLoop(config, session, [{ role: "user", content: "hi" }], signal);
 */

// ---- Running the loop ----

export { compactSession } from "./compact-session.js";
export type { LoopSession, ModelUsage, ParentRun, RunTally } from "./context.js";
export { createLoopSession, defaultConvertToLlm, estimateMessageTokens } from "./context.js";
export type { RunControl, RunOutcome } from "./loop.js";
export { agentLoop } from "./loop.js";
export { createModelCaller } from "./model-caller.js";

// ---- What the loop reads: its config and extension points ----

export type {
  AfterToolCallOutcome,
  BeforeToolCallDecision,
  CompactionOutcome,
  CompactionTrigger,
  Compactor,
  ConvertToLlm,
  LoopConfig,
  MessageSource,
  ModelCaller,
  PermissionDenial,
  StopHookOutcome,
  ToolCallInfo,
  TransformContext,
} from "./loop-config.js";

// ---- What the loop tells: events, state, stop conditions ----

export type {
  AgentEvent,
  AgentEventListener,
  AgentMessage,
  CustomAgentMessage,
  ExitReason,
  TurnEndReason,
} from "./events.js";
export type { AgentPhase, AgentState, AgentStateSnapshot, MutableAgentState } from "./state.js";
export { createAgentState, isTerminalPhase } from "./state.js";
export type { StepResult, StopCondition } from "./stop-conditions.js";
export { costExceeds, hasToolCall, stepCountIs, tokensExceed } from "./stop-conditions.js";
