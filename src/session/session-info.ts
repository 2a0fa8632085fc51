/**
 * What a listing shows about a session (first prompt, message count, cost, model), computed entry by
 * entry so a store can summarize a file while streaming it, without keeping the entries.
 */
import type { UserMessage } from "../llm/types.js";
import type { SessionEntry, SessionInfo } from "./types.js";

const PROMPT_PREVIEW_CHARS = 200;

/** Accumulates a SessionInfo over entries given in write order. */
export interface InfoAccumulator {
  add(entry: SessionEntry): void;
  /**
   * Counts a user or assistant entry known not to be a compaction copy, without reading it: what a
   * listing does once `hasPrompt`, when the entry's content can no longer matter.
   */
  countMessage(): void;
  /** True once the first prompt was found (later user entries only count). */
  readonly hasPrompt: boolean;
  finish(lastModified: number): SessionInfo;
}

/** Starts a SessionInfo for one session, or continues one summarized up to some entry. */
export function createInfoAccumulator(
  sessionId: string,
  from?: Omit<SessionInfo, "lastModified">,
): InfoAccumulator {
  const info: SessionInfo = from
    ? { ...from, sessionId, lastModified: 0 }
    : { sessionId, cwd: "", firstPrompt: "", lastModified: 0, messageCount: 0, totalCostUsd: 0 };
  return {
    add(entry) {
      switch (entry.type) {
        case "header":
          info.cwd = entry.cwd;
          if (entry.model !== undefined && info.model === undefined) info.model = entry.model;
          break;
        case "model_change":
          info.model = entry.model;
          break;
        case "result":
          info.totalCostUsd += entry.total_cost_usd;
          break;
        case "user":
        case "assistant":
          if (entry.copy_of !== undefined) break;
          info.messageCount++;
          if (entry.type === "user" && info.firstPrompt === "")
            info.firstPrompt = promptPreview(entry.message);
          break;
      }
    },
    countMessage() {
      info.messageCount++;
    },
    get hasPrompt() {
      return info.firstPrompt !== "";
    },
    finish(lastModified) {
      return { ...info, lastModified };
    },
  };
}

/** Summarizes a whole list of entries. */
export function summarizeEntries(
  sessionId: string,
  entries: SessionEntry[],
  lastModified: number,
): SessionInfo {
  const acc = createInfoAccumulator(sessionId);
  for (const entry of entries) acc.add(entry);
  return acc.finish(lastModified);
}

/** The typed text of a user message on one line, cut to a preview; "" for tool results only. */
export function promptPreview(message: UserMessage): string {
  const text =
    typeof message.content === "string"
      ? message.content
      : message.content
          .map((b) => (b.type === "text" ? b.text : ""))
          .filter((t) => t !== "")
          .join(" ");
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > PROMPT_PREVIEW_CHARS ? `${oneLine.slice(0, PROMPT_PREVIEW_CHARS - 1)}…` : oneLine;
}
