/**
 * What the mock provider can answer, and the builders tests script it with. One reply is rendered in
 * whichever wire format the request came in (Anthropic Messages or OpenAI Chat Completions), so a test
 * can run the same script against both providers.
 */
import type { IncomingHttpHeaders } from "node:http";

/**
 * The wire a request came in on, from its path: `anthropic` (`…/messages`), `openai`
 * (`…/chat/completions`, Azure's deployments path too), `openai-responses` (`…/responses`), `gemini`
 * (`…:streamGenerateContent`, `…:generateContent`).
 */
export type MockFormat =
  | "anthropic"
  | "openai"
  | "openai-responses"
  | "gemini"
  | "bedrock"
  | "bedrock-converse"
  | "vertex";

/** A request the mock received. */
export interface MockRequest {
  path: string;
  /** The path with its query string, as sent (Azure's `api-version`, Gemini's `alt=sse`). */
  url: string;
  method: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when it was not JSON). */
  body: any;
  /** The body as received (to check a signature over it). */
  rawBody?: string;
  format: MockFormat;
  /** Which TCP connection carried it (1, 2, …): equal numbers mean a kept-alive socket was reused. */
  connection: number;
  /**
   * Set to true when the client closed the connection before the answer was sent in full (an aborted
   * stream, say); a connection the mock itself cuts (`reply.hangup()`, `dropAfterEvents`) does not count.
   * Set when the mock sees the close, a moment after the client's abort: poll for it.
   */
  abandoned?: boolean;
}

/** One content block of a scripted answer. */
export type MockBlock =
  | { type: "text"; text: string; signature?: string }
  | { type: "thinking"; thinking: string; signature?: string }
  | { type: "redacted_thinking"; data: string }
  | {
      type: "tool_use";
      name: string;
      input?: unknown;
      id?: string;
      rawArguments?: string;
      signature?: string;
    };

/** How a streamed answer is delivered. */
export interface DeliveryOptions {
  /** Wait this long before each SSE event (slow chunks). Default 0. */
  delayMs?: number;
  /** Destroy the connection after this many SSE events (dropped mid-stream). */
  dropAfterEvents?: number;
  /** Insert a chunk that is not valid JSON after this many events. */
  malformedAfterEvents?: number;
  /** Split text, thinking and tool arguments into deltas of at most this many characters. Default 8. */
  chunkSize?: number;
  /** Extra response headers. */
  headers?: Record<string, string>;
}

/** Wire stop reasons a scripted answer can end with (Anthropic names; mapped for OpenAI). */
export type MockStopReason = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "refusal";

/** Options of a scripted model answer. */
export interface MessageOptions extends DeliveryOptions {
  /** Default: `tool_use` when the content has tool calls, else `end_turn`. */
  stopReason?: MockStopReason;
  stopSequence?: string;
  /** Overrides the OpenAI `finish_reason` on the wire, e.g. `"stop"` with tool calls like LiteLLM. */
  openaiFinishReason?: string | null;
  /** Token counts to report (input excludes cache reads, as Anthropic counts). */
  usage?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number; reasoning?: number };
  /** OpenAI tool-call ids on the first chunk only (OpenAI) or on every chunk (some gateways). */
  toolCallIds?: "first" | "every";
  /** OpenAI: send thinking signatures in `thinking_blocks`, as LiteLLM does for Anthropic models. */
  litellmThinkingBlocks?: boolean;
  /** Overrides Gemini's `finishReason`, e.g. `"RECITATION"`. */
  geminiFinishReason?: string;
  /** OpenAI: end without `data: [DONE]` (some gateways). */
  omitDone?: boolean;
  /** An error event in the stream after this many events (Anthropic `event: error`, OpenAI `{error}`). */
  streamError?: { type: string; message: string; afterEvents?: number };
  id?: string;
}

/** A scripted model answer. */
export interface MessageReply extends MessageOptions {
  kind: "message";
  content: MockBlock[];
}

/** An HTTP error answer; the body is the provider's real error shape unless `body` is given. */
export interface ErrorReply {
  kind: "error";
  status: number;
  headers?: Record<string, string>;
  message?: string;
  /** Anthropic `error.type` / OpenAI `error.type`; derived from the status when absent. */
  type?: string;
  /** OpenAI `error.code`. */
  code?: string;
  /** Sent as is (objects as JSON), for both formats. */
  body?: string | object;
  /** Per-format bodies, when the two providers word the error differently. */
  anthropicBody?: object;
  openaiBody?: object;
  geminiBody?: object;
}

/** Bytes sent as is with a 200 (and `text/event-stream` unless told otherwise). */
export interface RawReply {
  kind: "raw";
  body: string;
  status?: number;
  headers?: Record<string, string>;
}

/** Closes the connection without answering. */
export interface HangupReply {
  kind: "hangup";
}

/** Anything the mock can answer; a function decides from the request. */
export type Reply =
  | MessageReply
  | ErrorReply
  | RawReply
  | HangupReply
  | ((request: MockRequest) => Reply | Promise<Reply>);

/** A tool call to script. */
export interface MockToolCall {
  name: string;
  input?: unknown;
  id?: string;
  /** Gemini: the thought signature on the call's part. */
  signature?: string;
  /** Arguments text sent instead of `JSON.stringify(input)` (to script invalid JSON). */
  rawArguments?: string;
}

/** Builders for scripted replies. */
export const reply = {
  /** A plain text answer. */
  text: (text: string, options: MessageOptions = {}): MessageReply => ({
    kind: "message",
    content: [{ type: "text", text }],
    ...options,
  }),
  /** A thinking block (with signature) followed by a text answer. */
  thinking: (
    thinking: string,
    text: string,
    options: MessageOptions & { signature?: string } = {},
  ): MessageReply => ({
    kind: "message",
    content: [
      { type: "thinking", thinking, signature: options.signature ?? "sig-mock" },
      { type: "text", text },
    ],
    ...options,
  }),
  /** One or several tool calls at once, optionally after some text. */
  toolCalls: (calls: MockToolCall[], options: MessageOptions & { text?: string } = {}): MessageReply => ({
    kind: "message",
    content: [
      ...(options.text ? [{ type: "text" as const, text: options.text }] : []),
      ...calls.map((c) => ({ type: "tool_use" as const, ...c })),
    ],
    ...options,
  }),
  /** Any mix of blocks. */
  message: (content: MockBlock[], options: MessageOptions = {}): MessageReply => ({
    kind: "message",
    content,
    ...options,
  }),
  /** An HTTP error with the provider's real error body for the status. */
  error: (status: number, options: Omit<ErrorReply, "kind" | "status"> = {}): ErrorReply => ({
    kind: "error",
    status,
    ...options,
  }),
  /** A 400 "the prompt does not fit", worded exactly as each provider words it. */
  overflow: (): ErrorReply => ({
    kind: "error",
    status: 400,
    anthropicBody: {
      type: "error",
      error: { type: "invalid_request_error", message: "prompt is too long: 201234 tokens > 200000 maximum" },
    },
    openaiBody: {
      error: {
        message:
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens. Please reduce the length of the messages.",
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    },
    geminiBody: {
      error: {
        code: 400,
        message: "The input token count (1234567) exceeds the maximum number of tokens allowed (1048576).",
        status: "INVALID_ARGUMENT",
      },
    },
  }),
  /** A text answer whose stream then carries an error event (e.g. `overloaded_error`). */
  streamError: (
    type: string,
    message: string,
    options: MessageOptions & { text?: string } = {},
  ): MessageReply => ({
    kind: "message",
    content: options.text ? [{ type: "text", text: options.text }] : [],
    streamError: { type, message, afterEvents: options.streamError?.afterEvents },
    ...options,
  }),
  /** Raw bytes with status 200, as an SSE body unless headers say otherwise. */
  raw: (body: string, options: Omit<RawReply, "kind" | "body"> = {}): RawReply => ({
    kind: "raw",
    body,
    ...options,
  }),
  /** Closes the connection without an answer. */
  hangup: (): HangupReply => ({ kind: "hangup" }),
};
