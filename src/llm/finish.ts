/**
 * The provider-independent end of a streamed answer: parsing tool-call arguments and deciding the final
 * stop reason from the content, so both providers close a message by the same rules.
 */
import type {
  AssistantMessage,
  ContentBlock,
  StopReason,
  StreamEvent,
  ToolUseBlock,
  Usage,
} from "./types.js";

/**
 * Parses streamed tool-call arguments. Never throws: empty text is `{}`; text that is not a JSON object
 * gives `input: {}` with `parse_error` and `raw_input`, so the loop can tell the model what was wrong.
 */
function parseToolInput(raw: string): Pick<ToolUseBlock, "input" | "parse_error" | "raw_input"> {
  if (raw.trim() === "") return { input: {} };
  let value: unknown;
  try {
    value = JSON.parse(raw);
    // Some gateways encode the arguments twice ("{\"a\":1}" as a JSON string).
    if (typeof value === "string" && value.trimStart().startsWith("{")) value = JSON.parse(value);
  } catch (err) {
    return {
      input: {},
      parse_error: `invalid JSON in tool arguments: ${(err as Error).message}`,
      raw_input: raw,
    };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { input: {}, parse_error: "tool arguments must be a JSON object", raw_input: raw };
  }
  return { input: value as Record<string, unknown> };
}

/** Builds a finished tool_use block from its streamed arguments. */
export function toolUseBlock(id: string, name: string, raw: string): ToolUseBlock {
  const parsed = parseToolInput(raw);
  const block: ToolUseBlock = { type: "tool_use", id, name, input: parsed.input };
  if (parsed.parse_error !== undefined) {
    block.parse_error = parsed.parse_error;
    block.raw_input = parsed.raw_input;
  }
  return block;
}

/**
 * Decides the stop reason from the content rather than the provider's word: OpenAI-compatible gateways
 * (LiteLLM, vLLM) say `stop` with tool calls present. A `max_tokens` stop with tool calls is `truncated`:
 * those calls were cut off mid-write and must never run.
 */
function finalStop(
  content: ContentBlock[],
  reported: StopReason,
): { stop_reason: StopReason; truncated: boolean } {
  const hasToolCalls = content.some((b) => b.type === "tool_use");
  if (reported === "max_tokens") return { stop_reason: "max_tokens", truncated: hasToolCalls };
  if (hasToolCalls) return { stop_reason: "tool_use", truncated: false };
  if (reported === "tool_use") return { stop_reason: "end_turn", truncated: false };
  return { stop_reason: reported, truncated: false };
}

/**
 * Closes a streamed answer the same way for every wire: the message (its stop reason from `finalStop`,
 * `truncated` when cut tool calls must not run, and what the wire adds, such as `stop_details`), then
 * the final usage and `message_end`.
 */
export function pushMessageEnd(
  out: StreamEvent[],
  parts: { content: ContentBlock[]; id?: string; model: string; usage: Usage },
  reported: StopReason,
  extra: Pick<AssistantMessage, "stop_details" | "stop_sequence"> = {},
): void {
  const { content, id, model, usage } = parts;
  const { stop_reason, truncated } = finalStop(content, reported);
  const message: AssistantMessage = { role: "assistant", content, model, stop_reason, usage, ...extra };
  if (id !== undefined) message.id = id;
  if (truncated) message.truncated = true;
  out.push({ type: "usage", usage: { ...usage } });
  out.push({ type: "message_end", message });
}
