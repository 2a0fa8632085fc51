/**
 * What the loop needs, as plain data and small functions. `query()` and `Agent` build this from the
 * user's options; tests and embedders can build it directly and call `agentLoop`.
 *
 * The extension points (before/after tool call, stop, compaction, persistence) have working defaults
 * when absent: every tool allowed, no hooks, in-memory only, no compaction.
 */

import type { ProviderError } from "../llm/errors.js";
import type {
  EffortLevel,
  Message,
  ModelRequest,
  ModelStream,
  ThinkingConfig,
  ToolUseBlock,
  Usage,
} from "../llm/types.js";
import type { ConfinementLevel } from "../sandbox/confinement.js";
import type { FileScope, Tool, ToolResult, ToolSessionState } from "../tools/types.js";
import type { AgentEventListener, AgentMessage } from "./events.js";
import type { MutableAgentState } from "./state.js";
import type { StopCondition } from "./stop-conditions.js";

/**
 * Streams one model call for `model` (`provider/model`), with retries already applied. When another
 * model answers instead (the fallback model), `onFallback` is told which before its first event, so
 * the answer is priced and recorded under the model that gave it.
 */
export type ModelCaller = (
  model: string,
  request: Omit<ModelRequest, "model">,
  onRetry: (info: { attempt: number; maxRetries: number; delayMs: number; error: ProviderError }) => void,
  onFallback?: (model: string, cause: ProviderError) => void,
) => ModelStream;

/** What `beforeToolCall` decides: run (maybe with changed input), or refuse with a message. */
export type BeforeToolCallDecision =
  | {
      action: "run";
      input: Record<string, unknown>;
      /** Context for the model's next call (a PreToolUse hook's `additionalContext`). */
      additionalContext?: string;
      /** Run the call confined at this level (a Bash line allowed on the analysis alone). */
      confine?: ConfinementLevel;
    }
  | {
      action: "deny";
      message: string;
      /** True when the refusal came from permissions (it is listed in `permission_denials`). */
      permissionDenial?: boolean;
      /** Stop the whole run after answering this call (canUseTool's `interrupt`). */
      interrupt?: boolean;
      additionalContext?: string;
    };

/** A tool call that permissions refused, as the run's result lists it (`permission_denials`). */
export interface PermissionDenial {
  tool_name: string;
  tool_use_id: string;
  tool_input: Record<string, unknown>;
}

/** The call being decided on. */
export interface ToolCallInfo {
  call: ToolUseBlock;
  tool: Tool;
  /** Input after schema validation (defaults applied). */
  input: Record<string, unknown>;
  signal: AbortSignal;
}

/** What `afterToolCall` may change about a result, and context for the model's next call. */
export interface AfterToolCallOutcome {
  result?: ToolResult;
  /** Text added beside the tool results so the model reads it on its next call. */
  additionalContext?: string;
  /** Ends the run after this batch (a hook's `continue: false`), with this reason. */
  stopReason?: string;
}

/** What the Stop hook point decides when the model finished its answer. */
export interface StopHookOutcome {
  /** Keep going: this text becomes the next user message. */
  continueWith?: string;
}

/** Result of a compaction: the new history, and the numbers for the compact boundary. */
export interface CompactionOutcome {
  messages: AgentMessage[];
  summary: string;
  preTokens: number;
  postTokens: number;
}

/** Why a compaction runs: the loop's own triggers (`auto`, `overflow`), or the host's request (`manual`). */
export type CompactionTrigger = "auto" | "manual" | "overflow";

/** Compacts a history. Throws when it cannot (the loop counts failures and stops after three in a row). */
export type Compactor = (
  messages: AgentMessage[],
  options: {
    trigger: CompactionTrigger;
    signal: AbortSignal;
    model: string;
    instructions?: string;
  },
) => Promise<CompactionOutcome>;

/**
 * Rewrites the history before each model call (pruning, injecting context), before `convertToLlm`.
 * The one signature of `transformContext`, in `LoopConfig` and in `query()`'s options.
 */
export type TransformContext = (
  messages: AgentMessage[],
  signal: AbortSignal,
) => AgentMessage[] | Promise<AgentMessage[]>;

/** Turns the loop's messages into what the provider receives (`convertToLlm`; default: drops custom messages). */
export type ConvertToLlm = (messages: AgentMessage[]) => Message[] | Promise<Message[]>;

/**
 * Messages the loop polls for: `getSteeringMessages` at each turn boundary, `getFollowUpMessages` when
 * the run would otherwise end. An empty array means none.
 */
export type MessageSource = () => AgentMessage[] | Promise<AgentMessage[]>;

/** Everything the loop reads. Functions are read at each use, so control calls take effect mid-run. */
export interface LoopConfig {
  sessionId: string;
  cwd: string;
  /** The model for the next call (`provider/model`); `setModel()` changes what this returns. */
  getModel: () => string;
  callModel: ModelCaller;
  systemPrompt: string;
  tools: Tool[];
  maxTurns?: number;
  maxBudgetUsd?: number;
  maxTokens?: number;
  temperature?: number;
  stopSequences?: string[];
  /** @deprecated Use `getReasoning`. The thinking budget of the next call (0 or undefined: none). */
  getThinkingBudget?: () => number | undefined;
  /** Thinking and effort of the next call to `model`; wins over `getThinkingBudget`. */
  getReasoning?: (model: string) => { thinking?: ThinkingConfig; effort?: EffortLevel };
  stopWhen?: StopCondition[];
  /** Runs before every model call, before `convertToLlm` (always in that order, so `convertToLlm` sees the context as transformed). */
  transformContext?: TransformContext;
  /** Turns the loop's messages into what the provider receives. */
  convertToLlm?: ConvertToLlm;
  /** Messages to deliver at the next turn boundary (polled after each tool batch). */
  getSteeringMessages?: MessageSource;
  /** True when a steering message asks to skip the tool calls not yet started. */
  steeringInterruptsTools?: () => boolean;
  /** Messages that re-enter the loop when it would otherwise stop normally. */
  getFollowUpMessages?: MessageSource;
  /** Cost in USD of `usage` on `model`. */
  costOf: (model: string, usage: Usage) => number;
  /** The model's context window, for proactive compaction; undefined when unknown. */
  contextWindowOf?: (model: string) => number | undefined;
  /** The model's output limit, reported in `modelUsage`; undefined when unknown. */
  maxOutputTokensOf?: (model: string) => number | undefined;
  /** Tokens kept free below the context window before compacting proactively. */
  compactionReserveTokens?: number;
  /** Most tool calls running at once. */
  toolConcurrency?: number;
  /**
   * Calls begin executing in the model's order, and only side-effect-free ones run together (durable
   * sessions, whose steps are numbered in start order). See `SessionOptions.orderedToolStarts`.
   */
  orderedToolStarts?: boolean;
  /** True when something (a PostToolUse hook) will read a call's full `details`; see ToolContext. */
  wantsFullDetails?: (toolName: string) => boolean;
  /** The scope file tools re-check when they open a path through a symbolic link; see ToolContext. */
  fileScope?: () => FileScope | undefined;
  /** The time limit of a call to `tool` in ms (undefined or 0: none). */
  toolTimeoutOf?: (tool: Tool) => number | undefined;
  beforeToolCall?: (info: ToolCallInfo) => Promise<BeforeToolCallDecision>;
  afterToolCall?: (
    info: ToolCallInfo & { result: ToolResult; isError: boolean },
  ) => Promise<AfterToolCallOutcome>;
  onStop?: (signal: AbortSignal) => Promise<StopHookOutcome>;
  compact?: Compactor;
  /** Receives every message as soon as it joins the history (session persistence). */
  onMessage?: (message: AgentMessage) => void;
  /**
   * Awaited before tools run: resolves once the messages so far are stored, so a crash during a
   * tool always leaves a transcript that shows the call was made (and it is never re-run silently).
   */
  persistBarrier?: () => Promise<void>;
  toolState: ToolSessionState;
  /** The environment tools run commands in (the session's `env`); default `process.env`. */
  env?: Record<string, string | undefined>;
  state: MutableAgentState;
  emit: AgentEventListener;
}
