/**
 * Restoring a session for its next model call (pure functions over loaded entries): the active branch
 * since the last compaction, the summary as the opening user message, the model, and the cost so far.
 */
import { withCurrentSpelling } from "../llm/tool-result-spelling.js";
import type { ContentBlock, Message, UserMessage } from "../llm/types.js";
import { chainTo, chooseLeaf, indexEntries, linearChain } from "./branch.js";
import { repairToolPairs } from "./repair.js";
import type { HeaderEntry, ResumeState, SessionEntry } from "./types.js";

/** Options of `buildResumeState`. */
export interface BuildResumeOptions {
  /** Continue from this entry instead of the latest (a branch starts there). */
  resumeAt?: string;
  /** Pair dangling tool calls with "interrupted" results (default true). */
  repair?: boolean;
}

/** The opening text that carries a compaction summary into the resumed conversation. */
export function summaryText(summary: string): string {
  return (
    "This session is being continued from a previous conversation that ran out of context. " +
    "The summary below covers the earlier part of the conversation.\n\n" +
    `Summary:\n${summary}`
  );
}

/**
 * Builds what the next model call needs from a session's entries (all of them, or those a
 * `fromLastBoundary` load returned). Throws when `resumeAt` names no entry.
 */
export function buildResumeState(entries: SessionEntry[], options: BuildResumeOptions = {}): ResumeState {
  let totalCostUsd = 0;
  let numTurns = 0;
  let latestModel: string | undefined;
  let header: HeaderEntry | undefined;
  for (const entry of entries) {
    // Cost is money spent on any branch, so every run counts, not just those on the active branch.
    if (entry.type === "result") {
      totalCostUsd += entry.total_cost_usd;
      numTurns += entry.num_turns;
    } else if (entry.type === "model_change") {
      latestModel = entry.model;
    } else if (entry.type === "header") {
      header ??= entry;
    }
  }
  // The usual file is one chain in write order: no uuid index needed (see linearChain).
  let chain = options.resumeAt === undefined ? linearChain(entries) : undefined;
  if (chain === undefined) {
    const index = indexEntries(entries);
    chain = chainTo(index, chooseLeaf(index, entries[0]?.sessionId ?? "(empty)", options.resumeAt), true);
  }
  const leaf = chain[chain.length - 1];
  let summary: string | undefined;
  let branchModel: string | undefined;
  const messages: Message[] = [];
  for (const entry of chain) {
    if (entry.type === "compact_boundary") summary = entry.summary;
    else if (entry.type === "user" || entry.type === "assistant")
      messages.push(withCurrentSpelling(entry.message));
    else if (entry.type === "model_change") branchModel = entry.model;
  }
  if (summary !== undefined) withSummaryFirst(messages, summary);
  const repaired =
    options.repair === false ? { messages, interruptedToolUseIds: [] } : repairToolPairs(messages);
  return {
    messages: repaired.messages,
    summary,
    model: branchModel ?? latestModel ?? header?.model,
    totalCostUsd,
    numTurns,
    lastUuid: leaf.uuid,
    interruptedToolUseIds: repaired.interruptedToolUseIds,
    header,
  };
}

/** Puts the summary first; merged into a leading user message so roles keep alternating. */
function withSummaryFirst(messages: Message[], summary: string): void {
  const block: ContentBlock = { type: "text", text: summaryText(summary) };
  const first = messages[0];
  if (first?.role === "user") {
    const rest: ContentBlock[] =
      typeof first.content === "string" ? [{ type: "text", text: first.content }] : first.content;
    messages[0] = { role: "user", content: [block, ...rest] } satisfies UserMessage;
  } else {
    messages.unshift({ role: "user", content: [block] });
  }
}

/**
 * The whole conversation of the active branch as written, across compactions (compaction copies
 * skipped, so each message appears once): what a transcript viewer shows.
 */
export function transcriptMessages(entries: SessionEntry[], at?: string): Message[] {
  const index = indexEntries(entries);
  const leaf = chooseLeaf(index, entries[0]?.sessionId ?? "(empty)", at);
  const messages: Message[] = [];
  for (const entry of chainTo(index, leaf, false)) {
    if ((entry.type === "user" || entry.type === "assistant") && entry.copy_of === undefined) {
      messages.push(withCurrentSpelling(entry.message));
    }
  }
  return messages;
}
