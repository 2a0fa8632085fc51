/**
 * Making a restored history acceptable to providers, which reject a tool_use without a tool_result
 * right after it, a tool_result whose tool_use is not in the message before it, and empty assistant
 * messages. A session killed mid-tool leaves exactly such a history; the repair answers each open call
 * with an explicit "interrupted" error instead of running it again behind the user's back.
 */
import type { AssistantMessage, ContentBlock, Message, ToolResultBlock, UserMessage } from "../llm/types.js";

/** The text of the result given to a tool call that never finished. */
export const INTERRUPTED_TOOL_RESULT =
  "interrupted: the session ended before this tool finished; it was not re-run";

/** A repaired history and the tool calls that were answered as interrupted. */
export interface ToolPairRepair {
  messages: Message[];
  interruptedToolUseIds: string[];
}

/**
 * Pairs every tool_use with a tool_result in the next message: adds an isError "interrupted" result
 * for each call without one, turns results that answer no call in the previous message into text (so
 * nothing is lost), puts results before other blocks, and drops assistant messages with no content.
 * Messages that need no change are returned as the same objects; the input is never mutated.
 */
export function repairToolPairs(messages: Message[]): ToolPairRepair {
  const out: Message[] = [];
  const interruptedToolUseIds: string[] = [];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (message.role === "assistant") {
      if (message.content.length === 0) continue;
      out.push(message);
      const callIds = toolUseIds(message);
      if (callIds.length === 0) continue;
      const next = messages[i + 1];
      const answer = next?.role === "user" ? next : undefined;
      if (answer !== undefined) i++;
      out.push(pairResults(callIds, answer, interruptedToolUseIds));
    } else {
      out.push(pairResults([], message, interruptedToolUseIds));
    }
  }
  return { messages: out, interruptedToolUseIds };
}

/** `repairToolPairs` returning only the messages. */
export function repairDanglingToolUses(messages: Message[]): Message[] {
  return repairToolPairs(messages).messages;
}

function toolUseIds(message: AssistantMessage): string[] {
  const ids: string[] = [];
  for (const b of message.content) if (b.type === "tool_use") ids.push(b.id);
  return ids;
}

/**
 * True when `answer` already fits `callIds` (distinct ids): one result per call, in the calls' order,
 * first, and no other result. The usual case, checked without building anything, so a long resume
 * that repairs nothing allocates nothing here.
 */
function fits(callIds: string[], answer: UserMessage): boolean {
  if (typeof answer.content === "string") return callIds.length === 0;
  const blocks = answer.content;
  if (blocks.length < callIds.length) return false;
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i];
    if (i < callIds.length) {
      if (b.type !== "tool_result" || b.tool_use_id !== callIds[i] || callIds.indexOf(callIds[i]) !== i)
        return false;
    } else if (b.type === "tool_result") return false;
  }
  return true;
}

/** The user message answering `callIds`: `answer` as is when it already fits, else a fixed copy. */
function pairResults(callIds: string[], answer: UserMessage | undefined, interrupted: string[]): UserMessage {
  if (answer !== undefined && fits(callIds, answer)) return answer;
  const blocks: ContentBlock[] =
    answer === undefined ? [] : typeof answer.content === "string" ? [] : answer.content;
  const wanted = new Set(callIds);
  const results = new Map<string, ToolResultBlock>();
  const others: ContentBlock[] = [];
  for (const block of blocks) {
    if (block.type === "tool_result" && wanted.has(block.tool_use_id) && !results.has(block.tool_use_id)) {
      results.set(block.tool_use_id, block);
    } else if (block.type === "tool_result") {
      others.push(orphanAsText(block));
    } else {
      others.push(block);
    }
  }
  const ordered: ContentBlock[] = callIds.map((id) => {
    const found = results.get(id);
    if (found !== undefined) return found;
    interrupted.push(id);
    return { type: "tool_result", tool_use_id: id, content: INTERRUPTED_TOOL_RESULT, isError: true };
  });
  if (answer !== undefined && typeof answer.content === "string") {
    if (callIds.length === 0) return answer;
    others.push({ type: "text", text: answer.content });
  }
  const content = [...ordered, ...others];
  if (answer !== undefined && sameBlocks(blocks, content)) return answer;
  return { role: "user", content };
}

function sameBlocks(a: ContentBlock[], b: ContentBlock[]): boolean {
  return a.length === b.length && a.every((block, i) => block === b[i]);
}

/** A result whose call is gone, kept as text so the model still sees what the tool said. */
function orphanAsText(block: ToolResultBlock): ContentBlock {
  const body =
    typeof block.content === "string"
      ? block.content
      : block.content.map((b) => (b.type === "text" ? b.text : "[image]")).join("\n");
  const label = block.isError ? "error result" : "result";
  return {
    type: "text",
    text: `[${label} of tool call ${block.tool_use_id}, whose call is no longer in the conversation]\n${body}`,
  };
}
