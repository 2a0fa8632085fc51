/**
 * `get_usage` (the SDK's `usage_EXPERIMENTAL_…()`), Claude Code's `/usage` data, from what the stream
 * showed: the session's cost, API and wall time, tokens per model, and the lines Write and Edit added
 * and removed (from their `structuredPatch`). Goat runs on API keys, so there are no plan rate limits:
 * `rate_limits_available` is false and `rate_limits` null, as Claude Code answers for API-key sessions.
 */
import type { SDKMessage } from "../../index.js";

/** Reads the output stream and answers `get_usage`. */
export interface UsageTracker {
  observe(message: SDKMessage): void;
  usage(): Record<string, unknown>;
}

/** Creates a tracker for one session. */
export function createUsageTracker(): UsageTracker {
  const started = Date.now();
  let cost = 0;
  let apiMs = 0;
  let added = 0;
  let removed = 0;
  let modelUsage: Record<string, unknown> = {};
  return {
    observe(message) {
      if (message.type === "result") {
        // Both are the session's totals so far; the API time is per run.
        cost = message.total_cost_usd;
        modelUsage = message.modelUsage ?? {};
        apiMs += message.duration_api_ms;
      } else if (message.type === "user" && message.parent_tool_use_id === null) {
        const result = message.tool_use_result as
          | { type?: unknown; content?: unknown; structuredPatch?: unknown }
          | undefined;
        // A file Write created: all its lines are new.
        if (result?.type === "create" && typeof result.content === "string") {
          added += countLines(result.content);
          return;
        }
        const patch = result?.structuredPatch;
        if (!Array.isArray(patch)) return;
        for (const hunk of patch as Array<{ lines?: unknown }>) {
          if (!Array.isArray(hunk.lines)) continue;
          for (const line of hunk.lines) {
            if (typeof line !== "string") continue;
            if (line.startsWith("+")) added++;
            else if (line.startsWith("-")) removed++;
          }
        }
      }
    },
    usage: () => ({
      session: {
        total_cost_usd: cost,
        total_api_duration_ms: apiMs,
        total_duration_ms: Date.now() - started,
        total_lines_added: added,
        total_lines_removed: removed,
        model_usage: modelUsage,
      },
      subscription_type: null,
      rate_limits_available: false,
      rate_limits: null,
      behaviors: null,
    }),
  };
}

function countLines(text: string): number {
  if (text === "") return 0;
  const lines = text.split("\n").length;
  return text.endsWith("\n") ? lines - 1 : lines;
}
