/**
 * The Anthropic Messages API's streamed events, as far as the decoder (anthropic.ts) reads them. The
 * JSON is not validated against these types (that would cost a check per token): they say what the
 * API documents, and the decoder still guards every field a hostile or broken server could leave out.
 * Events and block types not listed here (`ping`, server-tool blocks, future additions) are skipped.
 */

/** Token counts; `message_delta` repeats them cumulatively and may omit any of them. */
export interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/** The block a `content_block_start` opens. */
export type AnthropicContentBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature?: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; id: string; name: string; input: unknown };

/** The piece a `content_block_delta` appends to its block. */
type AnthropicDelta =
  | { type: "text_delta"; text: string }
  | { type: "thinking_delta"; thinking: string }
  | { type: "signature_delta"; signature: string }
  | { type: "input_json_delta"; partial_json: string };

/** One `data:` payload of the stream. */
export type AnthropicStreamEvent =
  | { type: "message_start"; message?: { id?: string; usage?: AnthropicUsage } }
  | { type: "content_block_start"; index: number; content_block?: AnthropicContentBlock }
  | { type: "content_block_delta"; index: number; delta?: AnthropicDelta }
  | { type: "content_block_stop"; index: number }
  | {
      type: "message_delta";
      delta?: { stop_reason?: string | null; stop_sequence?: string | null };
      usage?: AnthropicUsage;
    }
  | { type: "message_stop" }
  | { type: "error"; error?: { type?: string; message?: string } };
