/**
 * Turns neutral stream events back into Anthropic's raw stream events, the payload of the SDK's
 * `stream_event` messages, so partial-message consumers written for the Claude Agent SDK work with
 * any provider.
 */
import type { StreamEvent } from "../llm/types.js";

/** Maps one neutral event to zero or more raw Anthropic stream events. */
export function toRawStreamEvents(event: StreamEvent): Array<Record<string, unknown>> {
  switch (event.type) {
    case "message_start":
      return [
        {
          type: "message_start",
          message: {
            id: event.id ?? "",
            type: "message",
            role: "assistant",
            model: event.model,
            content: [],
          },
        },
      ];
    case "text_start":
      return [{ type: "content_block_start", index: event.index, content_block: { type: "text", text: "" } }];
    case "text_delta":
      return [
        { type: "content_block_delta", index: event.index, delta: { type: "text_delta", text: event.delta } },
      ];
    case "thinking_start":
      return [
        {
          type: "content_block_start",
          index: event.index,
          content_block: { type: "thinking", thinking: "" },
        },
      ];
    case "thinking_delta":
      return [
        {
          type: "content_block_delta",
          index: event.index,
          delta: { type: "thinking_delta", thinking: event.delta },
        },
      ];
    case "thinking_end":
      return [
        ...(event.signature
          ? [
              {
                type: "content_block_delta",
                index: event.index,
                delta: { type: "signature_delta", signature: event.signature },
              },
            ]
          : []),
        { type: "content_block_stop", index: event.index },
      ];
    case "redacted_thinking":
      return [
        {
          type: "content_block_start",
          index: event.index,
          content_block: { type: "redacted_thinking", data: event.data },
        },
        { type: "content_block_stop", index: event.index },
      ];
    case "toolcall_start":
      return [
        {
          type: "content_block_start",
          index: event.index,
          content_block: { type: "tool_use", id: event.id, name: event.name, input: {} },
        },
      ];
    case "toolcall_delta":
      return [
        {
          type: "content_block_delta",
          index: event.index,
          delta: { type: "input_json_delta", partial_json: event.delta },
        },
      ];
    case "text_end":
    case "toolcall_end":
      return [{ type: "content_block_stop", index: event.index }];
    case "usage":
      return [];
    case "message_end":
      return [
        {
          type: "message_delta",
          delta: {
            stop_reason: event.message.stop_reason ?? null,
            stop_sequence: event.message.stop_sequence ?? null,
          },
          usage: event.message.usage ?? {},
        },
        { type: "message_stop" },
      ];
  }
}
