/**
 * Agent events: the fine-grained lifecycle stream of the loop. Each event carries whole,
 * self-contained payloads, so a listener never has to keep state to understand one.
 */
import type { ProviderError } from "../llm/errors.js";
import type { AssistantMessage, Message, StreamEvent, ToolResultBlock } from "../llm/types.js";
import type { ToolResult } from "../tools/types.js";

/**
 * A message the loop keeps in its history: a provider message, or one of the loop's own kinds
 * (a compaction summary, hook context) that `convertToLlm` turns into something the model reads.
 */
export type AgentMessage = Message | CustomAgentMessage;

/** A loop-specific message. The default `convertToLlm` sends `compaction_summary` as user text and drops the rest. */
export interface CustomAgentMessage {
  role: "custom";
  customType: string;
  content: string;
  /** Free-form data for programs; never sent to the model. */
  details?: unknown;
}

/** Why a turn (one model call and the tools it asked for) ended. */
export type TurnEndReason = "complete" | "tools_executed" | "steering" | "error" | "aborted";

/**
 * Why a run ended: a normal finish, a limit, an interruption, or a failure. `end_turn` is a
 * normal finish; so is `predicate` (a `stopWhen` condition said stop). `interrupted` comes from
 * `interrupt()`, `aborted` from the caller's own signal.
 */
export type ExitReason =
  | "end_turn"
  | "max_turns"
  | "max_budget"
  | "max_tokens"
  | "stop_sequence"
  | "predicate"
  | "hook"
  | "interrupted"
  | "aborted"
  | "error";

/** Every event the loop emits. */
export type AgentEvent =
  | { type: "agent_start"; sessionId: string }
  | { type: "agent_end"; messages: AgentMessage[]; exitReason: ExitReason; error?: string }
  | { type: "turn_start"; step: number }
  | {
      type: "turn_end";
      step: number;
      message: AssistantMessage;
      toolResults: ToolResultBlock[];
      reason: TurnEndReason;
    }
  | { type: "message_start"; step: number }
  | { type: "message_update"; step: number; event: StreamEvent }
  | { type: "message_end"; step: number; message: AssistantMessage; costUsd: number }
  /** A non-assistant message added to the history (a prompt, tool results, steering, a summary). */
  | { type: "message_appended"; message: AgentMessage }
  | { type: "tool_execution_start"; toolUseId: string; name: string; input: Record<string, unknown> }
  | { type: "tool_execution_update"; toolUseId: string; name: string; update: string; elapsedMs: number }
  | {
      type: "tool_execution_end";
      toolUseId: string;
      name: string;
      input: Record<string, unknown>;
      result: ToolResult;
      isError: boolean;
      durationMs: number;
    }
  | {
      type: "permission_denied";
      toolUseId: string;
      name: string;
      input: Record<string, unknown>;
      message: string;
    }
  | { type: "retry"; attempt: number; maxRetries: number; delayMs: number; error: ProviderError }
  | {
      type: "context_compacted";
      report: string;
      trigger: "auto" | "manual" | "overflow";
      preTokens: number;
      postTokens: number;
    }
  | { type: "warning"; message: string }
  /**
   * A hook began to run (emitted by the runtime with `includeHookEvents`): one per hook per firing,
   * `hookRunId` pairing it with its `hook_finished`.
   */
  | { type: "hook_started"; hookRunId: string; hookName: string; hookEvent: string }
  /** A hook ended: how, and what it printed (a command) or returned (a callback, as JSON). */
  | {
      type: "hook_finished";
      hookRunId: string;
      hookName: string;
      hookEvent: string;
      outcome: "success" | "error" | "cancelled";
      output: string;
      stdout: string;
      stderr: string;
      exitCode?: number;
    }
  /** An event of a subagent started by the Task call `parentToolUseId`. */
  | {
      type: "subagent_event";
      parentToolUseId: string;
      agentId: string;
      agentType: string;
      event: AgentEvent;
    };

/** Receives agent events. Must not throw; a thrown error is ignored by the loop. */
export type AgentEventListener = (event: AgentEvent) => void;
