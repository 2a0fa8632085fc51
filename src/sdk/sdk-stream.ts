/**
 * Turns agent events into SDK messages: one source, two views. The loop emits fine-grained agent
 * events; this listener derives the Claude-Agent-SDK-compatible messages from them.
 */
import { randomUUID } from "node:crypto";
import type { ToolResultBlock } from "../llm/types.js";
import type { AgentEvent, AgentMessage } from "../runtime/session.js";
import { sdkToolUseResult } from "./claude-tool-response.js";
import { toRawStreamEvents } from "./raw-stream-events.js";
import { type SDKMessage, toSDKAssistant, toSDKToolResult } from "./sdk-messages.js";

/** How often a running tool's `tool_progress` is repeated. */
const HEARTBEAT_MS = 1000;

/** Options of the mapper. */
export interface SdkStreamOptions {
  sessionId: () => string;
  includePartialMessages: boolean;
  push: (message: SDKMessage) => void;
  /** Set for a subagent's stream: the Task call its messages belong to. */
  parentToolUseId?: string;
  /**
   * The transcript entry's uuid of a message, when it has one: an assistant message then carries
   * it, so the host can pass it back as `resumeSessionAt` (as with Claude Code).
   */
  uuidOf?: (message: AgentMessage) => string | undefined;
}

/** Returns an agent-event listener that pushes the matching SDK messages. */
export function createSdkStream(options: SdkStreamOptions): (event: AgentEvent) => void {
  const { push } = options;
  const parent = options.parentToolUseId ?? null;
  // Structured tool output (Claude Code's shape) waits here between the tool's end and the
  // tool-results message.
  const details = new Map<string, unknown>();
  const heartbeats = new Map<string, NodeJS.Timeout>();
  const base = () => ({ uuid: randomUUID(), session_id: options.sessionId() });

  return (event) => {
    switch (event.type) {
      case "message_update":
        if (!options.includePartialMessages) return;
        for (const raw of toRawStreamEvents(event.event)) {
          push({ type: "stream_event", ...base(), event: raw, parent_tool_use_id: parent });
        }
        return;
      case "message_end":
        if (event.message.content.length === 0 && event.message.stop_reason !== "error") return;
        {
          const uuid = options.uuidOf?.(event.message) ?? randomUUID();
          push({ ...toSDKAssistant(event.message, options.sessionId(), uuid), parent_tool_use_id: parent });
        }
        return;
      case "message_appended": {
        const m = event.message;
        if (m.role !== "user" || typeof m.content === "string") return;
        const results = m.content.filter((c): c is ToolResultBlock => c.type === "tool_result");
        for (const result of results) {
          const d = details.get(result.tool_use_id);
          details.delete(result.tool_use_id);
          push({
            type: "user",
            ...base(),
            message: { role: "user", content: [toSDKToolResult(result)] },
            parent_tool_use_id: parent,
            ...(d !== undefined ? { tool_use_result: d } : {}),
          });
        }
        return;
      }
      case "tool_execution_start": {
        const progress = (elapsedSeconds: number) =>
          push({
            type: "tool_progress",
            ...base(),
            tool_use_id: event.toolUseId,
            tool_name: event.name,
            parent_tool_use_id: parent,
            elapsed_time_seconds: elapsedSeconds,
          });
        progress(0);
        // A heartbeat while the tool runs, so elapsed-time displays move even when it prints nothing.
        const started = Date.now();
        const timer = setInterval(() => progress((Date.now() - started) / 1000), HEARTBEAT_MS);
        timer.unref();
        heartbeats.set(event.toolUseId, timer);
        return;
      }
      case "tool_execution_update":
        push({
          type: "tool_progress",
          ...base(),
          tool_use_id: event.toolUseId,
          tool_name: event.name,
          parent_tool_use_id: parent,
          elapsed_time_seconds: event.elapsedMs / 1000,
          output: event.update,
        });
        return;
      case "tool_execution_end":
        clearInterval(heartbeats.get(event.toolUseId));
        heartbeats.delete(event.toolUseId);
        {
          const shaped = sdkToolUseResult(event.name, event.input, event.result, event.isError);
          if (shaped !== undefined) details.set(event.toolUseId, shaped);
        }
        return;
      case "retry":
        push({
          type: "system",
          subtype: "api_retry",
          ...base(),
          attempt: event.attempt,
          max_retries: event.maxRetries,
          retry_delay_ms: event.delayMs,
          error_status: event.error.status ?? null,
          error: event.error.message,
        });
        return;
      case "context_compacted":
        push({
          type: "system",
          subtype: "compact_boundary",
          ...base(),
          compact_metadata: {
            trigger: event.trigger === "manual" ? "manual" : "auto",
            pre_tokens: event.preTokens,
            post_tokens: event.postTokens,
          },
        });
        return;
      case "permission_denied":
        push({
          type: "system",
          subtype: "permission_denied",
          ...base(),
          tool_name: event.name,
          tool_use_id: event.toolUseId,
          message: event.message,
        });
        return;
      case "hook_started":
        push({
          type: "system",
          subtype: "hook_started",
          ...base(),
          hook_id: event.hookRunId,
          hook_name: event.hookName,
          hook_event: event.hookEvent,
        });
        return;
      case "hook_finished":
        push({
          type: "system",
          subtype: "hook_response",
          ...base(),
          hook_id: event.hookRunId,
          hook_name: event.hookName,
          hook_event: event.hookEvent,
          output: event.output,
          stdout: event.stdout,
          stderr: event.stderr,
          ...(event.exitCode !== undefined ? { exit_code: event.exitCode } : {}),
          outcome: event.outcome,
        });
        return;
      case "warning":
        push({
          type: "system",
          subtype: "informational",
          ...base(),
          content: event.message,
          level: "warning",
        });
        return;
      case "agent_end":
        // A tool that never reported its end (the run was cut short) stops beating here.
        for (const timer of heartbeats.values()) clearInterval(timer);
        heartbeats.clear();
        return;
      default:
        return;
    }
  };
}
