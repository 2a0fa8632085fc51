/**
 * Where to cut a history for compaction: everything before the cut is summarized, everything from it
 * on is kept verbatim. The one hard rule is the pairing invariant — a tool_result must stay in the same
 * part as the tool_use it answers — so the cut is checked against the actual ids in the history, not
 * guessed from message roles.
 */

import { CompactionError } from "../errors.js";
import type { ContentBlock } from "../llm/types.js";
import type { AgentMessage } from "../loop/events.js";

/** Counts the tokens of some messages (estimateMessageTokens by default). */
export type TokenEstimator = (messages: AgentMessage[]) => number;

/** A history split in two: the part to summarize and the tail kept verbatim. */
export interface CompactionPlan {
  /** Oldest messages, to be replaced by a summary (may include an earlier summary). */
  summarize: AgentMessage[];
  /** The newest messages, the same objects as in the input, in order. */
  kept: AgentMessage[];
  /** True when the tail had to be made smaller than `keepTokens` so there was anything to summarize. */
  shrunk: boolean;
}

/**
 * For each index, whether a history may start there: no tool_result at or after it answers a tool_use
 * before it, and the message there is not itself a tool-result message. Index 0 is always allowed.
 */
export function validCutPoints(messages: AgentMessage[]): boolean[] {
  const useIndex = new Map<string, number>();
  // diff[i] counts the pairs whose span (use, result] covers i; a cut inside a span splits a pair.
  const diff = new Array<number>(messages.length + 1).fill(0);
  messages.forEach((m, i) => {
    for (const b of blocksOf(m)) {
      if (b.type === "tool_use") useIndex.set(b.id, i);
      else if (b.type === "tool_result") {
        const u = useIndex.get(b.tool_use_id);
        if (u !== undefined && u < i) {
          diff[u + 1]++;
          diff[i + 1]--;
        }
      }
    }
  });
  const valid: boolean[] = [];
  let open = 0;
  for (let i = 0; i < messages.length; i++) {
    open += diff[i];
    valid.push(i === 0 || (open === 0 && !isToolResultMessage(messages[i])));
  }
  return valid;
}

/**
 * The index where the kept tail starts: the earliest valid cut whose tail fits in `keepTokens`
 * (walking back from the newest message). When even the smallest valid tail is larger, that smallest
 * tail is chosen. Returns 0 when the whole history fits (nothing to summarize).
 */
export function findCutPoint(messages: AgentMessage[], keepTokens: number, estimate: TokenEstimator): number {
  const valid = validCutPoints(messages);
  let tail = 0;
  let best: number | undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    tail += estimate([messages[i]]);
    if (!valid[i]) continue;
    if (tail > keepTokens) return best ?? i;
    best = i;
  }
  return best ?? 0;
}

/**
 * Splits a history for compaction. The tail is about `keepTokens`; when that leaves nothing new to
 * summarize (a small context window, or one huge recent turn), the tail shrinks to about half the
 * history, then to the smallest valid tail. Throws when no cut leaves anything to summarize.
 */
export function planCompaction(
  messages: AgentMessage[],
  keepTokens: number,
  estimate: TokenEstimator,
): CompactionPlan {
  let cut = findCutPoint(messages, keepTokens, estimate);
  let shrunk = false;
  if (!hasConversation(messages.slice(0, cut))) {
    shrunk = true;
    const half = Math.floor(estimate(messages) / 2);
    cut = findCutPoint(messages, Math.min(keepTokens, half), estimate);
    // keepTokens 0: the newest valid cut, the smallest tail the pairing rule allows.
    if (!hasConversation(messages.slice(0, cut))) cut = findCutPoint(messages, 0, estimate);
  }
  if (!hasConversation(messages.slice(0, cut))) {
    throw new CompactionError(
      `Cannot compact: the history (${messages.length} messages) has no older part to summarize; ` +
        "the newest message alone, or a tool call with its results, is all there is.",
    );
  }
  return { summarize: messages.slice(0, cut), kept: messages.slice(cut), shrunk };
}

/** True for an earlier compaction summary kept in the history. */
export function isCompactionSummary(message: AgentMessage): boolean {
  return message.role === "custom" && message.customType === "compaction_summary";
}

/** True when `messages` hold anything besides earlier summaries and loop-only notes. */
function hasConversation(messages: AgentMessage[]): boolean {
  return messages.some((m) => m.role === "user" || m.role === "assistant");
}

function isToolResultMessage(message: AgentMessage): boolean {
  return message.role === "user" && blocksOf(message).some((b) => b.type === "tool_result");
}

function blocksOf(message: AgentMessage): ContentBlock[] {
  if (message.role === "custom" || typeof message.content === "string") return [];
  return message.content;
}
