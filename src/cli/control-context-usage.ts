/**
 * `get_context_usage` when the runtime has no `getContextUsage()` of its own: Claude Code's answer
 * built from what the stream showed, the last main-thread model call's usage (everything sent plus the
 * answer is what the next call carries) and the model's context window from the result's `modelUsage`.
 * Only two rows (messages and free space): the finer breakdown needs the runtime.
 */

import { defaultModels } from "../llm/models.js";
import type { SDKMessage } from "../runtime/sdk-messages.js";

/** What the stream has shown about the context so far. */
export interface ContextTracker {
  /** Reads one output message. */
  observe(message: SDKMessage): void;
  /** Claude Code's `get_context_usage` answer for the current state. */
  usage(): Record<string, unknown>;
}

/** Creates a tracker; `configured()` names the model before any call has been made. */
export function createContextTracker(configured: () => string | undefined): ContextTracker {
  let tokens = 0;
  let lastModel: string | undefined;
  const windows = new Map<string, number>();
  return {
    observe(message) {
      if (message.type === "assistant" && message.parent_tool_use_id === null) {
        const u = message.message.usage;
        tokens =
          (u.input_tokens ?? 0) +
          (u.cache_read_input_tokens ?? 0) +
          (u.cache_creation_input_tokens ?? 0) +
          (u.output_tokens ?? 0);
        lastModel = message.message.model;
      } else if (message.type === "result") {
        for (const [name, usage] of Object.entries(message.modelUsage ?? {})) {
          if (usage.contextWindow > 0) windows.set(name, usage.contextWindow);
        }
      }
    },
    usage() {
      const name = lastModel ?? configured() ?? "";
      const max = windows.get(name) ?? catalogWindow(name) ?? 200_000;
      const used = Math.min(tokens, max);
      return {
        categories: [
          { id: "messages", name: "Messages", tokens: used, color: "purple", kind: "used" },
          { id: "free_space", name: "Free space", tokens: max - used, color: "promptBorder", kind: "free" },
        ],
        totalTokens: used,
        maxTokens: max,
        rawMaxTokens: max,
        percentage: Math.round((used / max) * 1000) / 10,
        gridRows: [],
        model: name,
        memoryFiles: [],
        mcpTools: [],
        agents: [],
      };
    },
  };
}

function catalogWindow(model: string): number | undefined {
  const id = model.includes("/") ? model.slice(model.indexOf("/") + 1) : model;
  return defaultModels.find((m) => m.id === id || `${m.provider}/${m.id}` === model)?.contextWindow;
}
