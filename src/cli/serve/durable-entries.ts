/**
 * A durable session's SDK messages (its message log in PostgreSQL) as the viewer's transcript
 * entries, so the page draws them with the code that draws local transcripts: assistant and user
 * messages and results keep their shape; the run's start, retries, refused calls and compactions
 * become one-line notes; messages of a subagent (those with a `parent_tool_use_id`) are set apart
 * under its Task call's id, where the page nests them. Each entry's uuid is its position in the log,
 * which the page uses to keep one copy of each.
 *
 * The log holds what the session said, not what it was asked: the prompt comes from the workflow's
 * request and opens the transcript.
 */
import type { SDKMessage } from "../../index.js";
import { withMarkdownTrees } from "./markdown-tree.js";

/** A transcript entry as the page reads it (the JSONL store's shapes, plus `note`). */
export type ViewerEntry = Record<string, unknown> & { type: string; uuid: string };

/** Where an entry goes: the session's own transcript, or a subagent's (by its Task call's id). */
export interface PlacedEntry {
  /** The Task call's id for a subagent's message; undefined for the session's own. */
  agentId?: string;
  entry: ViewerEntry;
}

/** The entries that open a durable session's transcript: when and where it started, and its prompt. */
export function openingEntries(
  workflowId: string,
  started: { createdAt: number; cwd?: string; prompt: string },
): ViewerEntry[] {
  return [
    {
      type: "header",
      uuid: `${workflowId}:header`,
      createdAt: new Date(started.createdAt).toISOString(),
      cwd: started.cwd ?? "",
    },
    { type: "user", uuid: `${workflowId}:prompt`, message: { role: "user", content: started.prompt } },
  ];
}

/** The entry of the message at `position` in the log, or undefined for one the viewer does not show. */
export function entryOfMessage(
  workflowId: string,
  position: number,
  message: SDKMessage,
): PlacedEntry | undefined {
  const uuid = `${workflowId}:${position}`;
  const entry = viewerEntry(uuid, message);
  if (!entry) return undefined;
  const parent = (message as { parent_tool_use_id?: unknown }).parent_tool_use_id;
  return {
    ...(typeof parent === "string" && parent !== "" ? { agentId: parent } : {}),
    entry: withMarkdownTrees(entry),
  };
}

function viewerEntry(uuid: string, m: SDKMessage): ViewerEntry | undefined {
  switch (m.type) {
    case "assistant":
      return { type: "assistant", uuid, message: m.message };
    case "user":
      return { type: "user", uuid, message: m.message };
    case "result":
      return {
        type: "result",
        uuid,
        subtype: m.subtype,
        num_turns: m.num_turns,
        total_cost_usd: m.total_cost_usd,
        duration_ms: m.duration_ms,
        ...("errors" in m ? { errors: m.errors } : {}),
      };
    case "system":
      return systemNote(uuid, m);
    default:
      return undefined;
  }
}

function systemNote(uuid: string, m: Extract<SDKMessage, { type: "system" }>): ViewerEntry | undefined {
  const note = (text: string): ViewerEntry => ({ type: "note", uuid, text });
  switch (m.subtype) {
    case "init":
      return note(`Run started in ${m.cwd} · ${m.model}`);
    case "compact_boundary":
      return note(
        `Compacted (${m.compact_metadata.trigger}): ${m.compact_metadata.pre_tokens} → ${m.compact_metadata.post_tokens ?? "?"} tokens`,
      );
    case "api_retry":
      return note(`Model call retried (attempt ${m.attempt} of ${m.max_retries}): ${m.error}`);
    case "permission_denied":
      return note(`${m.tool_name} refused: ${m.message}`);
    case "informational":
      return note(m.content);
    default:
      return undefined;
  }
}
