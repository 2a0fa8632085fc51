/**
 * Turns the part of a history being compacted into a plain-text transcript for the summary request.
 * As text, the provider's tool_use/tool_result pairing rules no longer apply to that call, and long
 * tool outputs can be cut so the summary request itself stays well inside the context window.
 */

import type { ContentBlock, ToolResultBlock } from "../llm/types.js";
import { SUMMARY_PREFIX } from "../loop/context.js";
import type { AgentMessage } from "../loop/events.js";
import { summaryText } from "../session/resume.js";
import { isCompactionSummary } from "./cut-point.js";

/** Per-block character limits of a transcript. */
export interface TranscriptLimits {
  /** Longest tool output kept (head and tail, the middle elided). */
  toolResultChars: number;
  /** Longest tool-call input (JSON) kept. */
  toolInputChars: number;
  /** Longest user or assistant text block kept. */
  textChars: number;
  /** Longest thinking block kept. */
  thinkingChars: number;
}

/** Limits used for a normal summary request. */
export const DEFAULT_TRANSCRIPT_LIMITS: TranscriptLimits = {
  toolResultChars: 3_000,
  toolInputChars: 2_000,
  textChars: 20_000,
  thinkingChars: 1_500,
};

/** Much smaller limits, for a second attempt after the summary request itself overflowed. */
export const TIGHT_TRANSCRIPT_LIMITS: TranscriptLimits = {
  toolResultChars: 500,
  toolInputChars: 300,
  textChars: 3_000,
  thinkingChars: 0,
};

/**
 * The transcript of `messages`: `[User]:`, `[Assistant]:`, `[Tool call]:` and `[Tool result]:` lines
 * (tool results named after their call), earlier summaries as `[Earlier summary]:`. Loop-only custom
 * messages the model never saw are left out.
 */
export function serializeForSummary(
  messages: AgentMessage[],
  limits: TranscriptLimits = DEFAULT_TRANSCRIPT_LIMITS,
): string {
  const toolNames = new Map<string, string>();
  const parts: string[] = [];
  for (const m of messages) {
    if (m.role === "custom") {
      if (isCompactionSummary(m)) parts.push(`[Earlier summary]:\n${m.content}`);
      continue;
    }
    const blocks: ContentBlock[] =
      typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    for (const block of blocks) {
      const line = blockLine(block, m.role, toolNames, limits);
      if (line !== undefined) parts.push(line);
    }
  }
  return parts.join("\n\n");
}

function blockLine(
  block: ContentBlock,
  role: "user" | "assistant",
  toolNames: Map<string, string>,
  limits: TranscriptLimits,
): string | undefined {
  switch (block.type) {
    case "text": {
      if (block.text.trim() === "") return undefined;
      const earlier = role === "user" ? stripSummaryPrefix(block.text) : undefined;
      if (earlier !== undefined) return `[Earlier summary]:\n${earlier}`;
      return `[${role === "user" ? "User" : "Assistant"}]: ${cut(block.text, limits.textChars)}`;
    }
    case "thinking":
      if (limits.thinkingChars <= 0 || block.thinking.trim() === "") return undefined;
      return `[Assistant thinking]: ${cut(block.thinking, limits.thinkingChars)}`;
    case "redacted_thinking":
      return undefined;
    case "image":
      return `[${role === "user" ? "User" : "Assistant"} image]`;
    case "tool_use": {
      toolNames.set(block.id, block.name);
      const input = block.raw_input ?? JSON.stringify(block.input);
      return `[Tool call ${block.name} ${block.id}]: ${cut(input, limits.toolInputChars)}`;
    }
    case "tool_result": {
      const name = toolNames.get(block.tool_use_id) ?? "tool";
      const status = block.isError ? " (error)" : "";
      return `[Tool result ${name} ${block.tool_use_id}${status}]: ${cut(resultText(block), limits.toolResultChars)}`;
    }
  }
}

/** The prefixes an earlier summary carries as user text: in a live history, and in a resumed one. */
const SUMMARY_TEXT_PREFIXES = [SUMMARY_PREFIX, summaryText("")];

/** The summary inside a user text that carries one (a resumed session's opening), else undefined. */
export function stripSummaryPrefix(text: string): string | undefined {
  const prefix = SUMMARY_TEXT_PREFIXES.find((p) => text.startsWith(p));
  return prefix === undefined ? undefined : text.slice(prefix.length);
}

/** True when `messages` carry an earlier summary, as a summary message or as a resumed opening text. */
export function hasEarlierSummary(messages: AgentMessage[]): boolean {
  return messages.some((m) => {
    if (m.role === "custom") return isCompactionSummary(m);
    if (m.role !== "user") return false;
    const blocks = typeof m.content === "string" ? [{ type: "text" as const, text: m.content }] : m.content;
    return blocks.some((b) => b.type === "text" && stripSummaryPrefix(b.text) !== undefined);
  });
}

function resultText(block: ToolResultBlock): string {
  if (typeof block.content === "string") return block.content;
  return block.content.map((c) => (c.type === "text" ? c.text : "[image]")).join("\n");
}

/** Keeps the head and the tail of a long text; the end of a tool output (errors, totals) matters too. */
export function truncateMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.ceil((max * 2) / 3);
  const tail = max - head;
  const omitted = text.length - head - tail;
  return `${text.slice(0, head)}\n[… ${omitted} characters omitted …]\n${tail > 0 ? text.slice(-tail) : ""}`;
}

const cut = truncateMiddle;
