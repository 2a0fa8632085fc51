/**
 * The SDK message stream: the shapes of the Claude Agent SDK's `query()` messages, so code written
 * for `@anthropic-ai/claude-agent-sdk` reads ours unchanged. Every message has `uuid` and `session_id`.
 */
import type { AssistantMessage, ContentBlock, StopReason, ToolResultBlock, Usage } from "../llm/types.js";
import type { PermissionMode } from "../permissions/types.js";
import type { ExitReason, ModelUsage } from "../runtime/session.js";

/**
 * A tool result as the Claude Agent SDK's messages spell it: the failure flag is `is_error`
 * (Anthropic's wire spelling), where Goat's own messages say `isError`.
 */
export type SDKToolResultBlock = Omit<ToolResultBlock, "isError"> & { is_error?: boolean };

/** A content block of an SDK user message: Goat's blocks, with the tool result in Claude's spelling. */
export type SDKContentBlock = Exclude<ContentBlock, ToolResultBlock> | SDKToolResultBlock;

/** The Claude Agent SDK's permission modes (Goat's own, by the SDK's name). */
export type PermissionModeName = PermissionMode;

/** `system`/`init`: sent first in every run. */
export interface SDKSystemInitMessage {
  type: "system";
  subtype: "init";
  uuid: string;
  session_id: string;
  cwd: string;
  model: string;
  tools: string[];
  mcp_servers: Array<{ name: string; status: string }>;
  permissionMode: PermissionModeName;
  slash_commands: string[];
  apiKeySource: string;
  claude_code_version: string;
  goat_version: string;
  /**
   * What confines the Bash commands Goat allows without asking: the sandbox launcher's path
   * (bubblewrap, sandbox-exec), or `none` where no sandbox can run (they then run unconfined, with
   * Goat's analysis as the only line; `goat_confinement_problem` says why).
   */
  goat_confinement?: string;
  /** Why no sandbox can run here, when `goat_confinement` is `none`. */
  goat_confinement_problem?: string;
  output_style: string;
  agents?: string[];
  skills: string[];
  plugins: Array<{ name: string; path: string; version?: string }>;
  /** Why a configured plugin, or part of one, did not load; absent when all did. */
  plugin_errors?: Array<{ plugin: string; type: string; message: string; path?: string }>;
}

/** A complete assistant message of one model call. */
export interface SDKAssistantMessage {
  type: "assistant";
  uuid: string;
  session_id: string;
  message: {
    id: string;
    type: "message";
    role: "assistant";
    model: string;
    content: ContentBlock[];
    stop_reason: StopReason | null;
    stop_sequence: string | null;
    usage: Usage;
  };
  parent_tool_use_id: string | null;
  /** Set when the call failed: what kind of failure (the SDK's `SDKAssistantMessageError` names). */
  error?: string;
}

/** A user message: the prompt, or tool results (with the structured tool output). */
export interface SDKUserMessage {
  type: "user";
  uuid?: string;
  session_id: string;
  message: { role: "user"; content: string | SDKContentBlock[] };
  parent_tool_use_id: string | null;
  /** Structured output of the tool (its `details`), for programs. */
  tool_use_result?: unknown;
  isSynthetic?: boolean;
}

/** A raw Anthropic stream event (only with `includePartialMessages`). */
export interface SDKPartialAssistantMessage {
  type: "stream_event";
  uuid: string;
  session_id: string;
  event: Record<string, unknown>;
  parent_tool_use_id: string | null;
}

/** Progress of a running tool. */
export interface SDKToolProgressMessage {
  type: "tool_progress";
  uuid: string;
  session_id: string;
  tool_use_id: string;
  tool_name: string;
  parent_tool_use_id: string | null;
  elapsed_time_seconds: number;
  /** The latest partial output, when the tool reports any (a Goat addition). */
  output?: string;
}

/** The history was compacted. */
export interface SDKCompactBoundaryMessage {
  type: "system";
  subtype: "compact_boundary";
  uuid: string;
  session_id: string;
  compact_metadata: { trigger: "manual" | "auto"; pre_tokens: number; post_tokens?: number };
}

/** A model call is being retried after a transient error. */
export interface SDKAPIRetryMessage {
  type: "system";
  subtype: "api_retry";
  uuid: string;
  session_id: string;
  attempt: number;
  max_retries: number;
  retry_delay_ms: number;
  error_status: number | null;
  error: string;
}

/** A tool call was refused by permissions. */
export interface SDKPermissionDeniedMessage {
  type: "system";
  subtype: "permission_denied";
  uuid: string;
  session_id: string;
  tool_name: string;
  tool_use_id: string;
  message: string;
}

/** A non-fatal problem worth showing (a throwing stop predicate, a failed compaction, a hook error). */
export interface SDKInformationalMessage {
  type: "system";
  subtype: "informational";
  uuid: string;
  session_id: string;
  content: string;
  level: "info" | "notice" | "warning";
}

/** A task (subagent or background shell) ended; `stopped` when the host stopped it with `stopTask`. */
export interface SDKTaskNotificationMessage {
  type: "system";
  subtype: "task_notification";
  uuid: string;
  session_id: string;
  task_id: string;
  /** The Task call that started a subagent. */
  tool_use_id?: string;
  status: "completed" | "failed" | "stopped";
  /** Goat keeps no task output file: always "". */
  output_file: string;
  summary: string;
}

/** A hook began to run (with `includeHookEvents`); `hook_id` pairs it with its `hook_response`. */
export interface SDKHookStartedMessage {
  type: "system";
  subtype: "hook_started";
  uuid: string;
  session_id: string;
  hook_id: string;
  /** `<Event>:<matcher or *>`, e.g. `PreToolUse:Bash`. */
  hook_name: string;
  hook_event: string;
}

/** A hook ended (with `includeHookEvents`): how, and what it printed or returned. */
export interface SDKHookResponseMessage {
  type: "system";
  subtype: "hook_response";
  uuid: string;
  session_id: string;
  hook_id: string;
  hook_name: string;
  hook_event: string;
  /** A command's stdout, or a callback's answer as JSON. */
  output: string;
  stdout: string;
  /** A command's stderr, or why the hook failed. */
  stderr: string;
  /** A command's exit code. */
  exit_code?: number;
  outcome: "success" | "error" | "cancelled";
}

/** A permission refusal as listed in `result.permission_denials`. */
export interface SDKPermissionDenial {
  tool_name: string;
  tool_use_id: string;
  tool_input: Record<string, unknown>;
}

/** Fields every result carries. */
export interface SDKResultBase {
  type: "result";
  uuid: string;
  session_id: string;
  duration_ms: number;
  duration_api_ms: number;
  is_error: boolean;
  num_turns: number;
  /** The model's stop reason on the last call. */
  stop_reason: StopReason | null;
  /** Running total for this query() (all runs, all models). */
  total_cost_usd: number;
  /** This run's own cost (a Goat addition). */
  run_cost_usd: number;
  /**
   * The session's whole cost: every run recorded in its transcript, earlier processes' included
   * (a resumed session), plus this query's (a Goat addition).
   */
  session_total_cost_usd: number;
  usage: Usage;
  modelUsage: Record<string, ModelUsage>;
  permission_denials: SDKPermissionDenial[];
  /** The uuid of the user message this run answered (the host's own, or one Goat made). */
  user_message_uuid?: string;
  /** Why the run ended, in Goat's words (the loop's `ExitReason`, more precise than `subtype`). */
  exit_reason: ExitReason;
  terminal_reason: string;
}

/** The run finished normally. */
export interface SDKResultSuccess extends SDKResultBase {
  subtype: "success";
  result: string;
  /** With `outputFormat`: the model's output, valid against the schema. */
  structured_output?: unknown;
}

/** The run ended on a limit or an error. */
export interface SDKResultError extends SDKResultBase {
  subtype:
    | "error_max_turns"
    | "error_max_budget_usd"
    | "error_during_execution"
    | "error_max_structured_output_retries";
  errors: string[];
  /** The last answer's text, when there was one (a Goat addition; the SDK omits it). */
  result?: string;
}

/** The one message that closes each run. */
export type SDKResultMessage = SDKResultSuccess | SDKResultError;

/** Every message `query()` yields. */
export type SDKMessage =
  | SDKSystemInitMessage
  | SDKAssistantMessage
  | SDKUserMessage
  | SDKPartialAssistantMessage
  | SDKToolProgressMessage
  | SDKCompactBoundaryMessage
  | SDKAPIRetryMessage
  | SDKPermissionDeniedMessage
  | SDKInformationalMessage
  | SDKTaskNotificationMessage
  | SDKHookStartedMessage
  | SDKHookResponseMessage
  | SDKResultMessage;

/** A tool result of Goat's history as the SDK's user message carries it (`is_error`). */
export function toSDKToolResult(block: ToolResultBlock): SDKToolResultBlock {
  const { isError, ...rest } = block;
  return isError === true ? { ...rest, is_error: true } : rest;
}

/** Maps an assistant message to the SDK's `assistant` message. */
export function toSDKAssistant(
  message: AssistantMessage,
  sessionId: string,
  uuid: string,
): SDKAssistantMessage {
  return {
    type: "assistant",
    uuid,
    session_id: sessionId,
    message: {
      id: message.id ?? `msg_${uuid.replace(/-/g, "").slice(0, 24)}`,
      type: "message",
      role: "assistant",
      model: message.model ?? "",
      content: message.content,
      stop_reason: message.stop_reason ?? null,
      stop_sequence: message.stop_sequence ?? null,
      usage: message.usage ?? {
        input_tokens: 0,
        output_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
      },
    },
    parent_tool_use_id: null,
    ...(message.stop_reason === "error" ? { error: sdkErrorName(message.error_kind) } : {}),
    ...(message.stop_reason === "max_tokens" ? { error: "max_output_tokens" } : {}),
  };
}

/** The Claude Agent SDK's `SDKAssistantMessageError` name for a provider error kind. */
function sdkErrorName(kind: string | undefined): string {
  switch (kind) {
    case "rate_limit":
      return "rate_limit";
    case "overloaded":
      return "overloaded";
    case "authentication":
      return "authentication_failed";
    case "invalid_request":
    case "context_overflow":
    case "invalid_tool_json":
      return "invalid_request";
    case "not_found":
      return "model_not_found";
    case "server":
      return "server_error";
    default:
      return "unknown";
  }
}
