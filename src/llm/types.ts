/**
 * The provider-neutral data model: messages, requests and stream events.
 *
 * Everything here is plain JSON data (no classes, no functions except the abort signal on a request),
 * so a whole conversation can be serialized, stored and replayed on another provider. The content
 * blocks follow Anthropic's Messages shapes because they are the richest common form; the OpenAI
 * provider converts to and from them.
 */

import type { ProviderTimeouts } from "./timeouts.js";

/** Plain text written by the model or the user. */
export interface TextBlock {
  type: "text";
  text: string;
  /**
   * Opaque data the provider that wrote this text needs back on it (Gemini's thought signature).
   * Sent back only by that wire; others leave it out.
   */
  signature?: string;
}

/** The model's visible reasoning. `signature` must be sent back unchanged on the next request. */
export interface ThinkingBlock {
  type: "thinking";
  thinking: string;
  signature?: string;
}

/** Reasoning the provider encrypted; sent back as-is. */
export interface RedactedThinkingBlock {
  type: "redacted_thinking";
  data: string;
}

/** A request by the model to run a tool. `input` is the parsed JSON arguments. */
export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: Record<string, unknown>;
  /**
   * Set when the model's arguments were not valid JSON. `input` is then `{}` and `raw_input` keeps the
   * text as sent, so nothing is lost; the loop answers the call with an error the model can act on.
   * Providers never send these two fields back on the wire.
   */
  parse_error?: string;
  raw_input?: string;
  /**
   * Opaque data the provider that wrote this call needs back on it: Gemini's thought signature, the
   * Responses API's function-call item id. Sent back only by that wire; others leave it out.
   */
  signature?: string;
}

/** An image, inline (base64) or by URL. */
export interface ImageBlock {
  type: "image";
  source:
    | { type: "base64"; media_type: "image/png" | "image/jpeg" | "image/gif" | "image/webp"; data: string }
    | { type: "url"; url: string };
}

/** The answer to one tool_use, matched by `tool_use_id`. */
export interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: string | Array<TextBlock | ImageBlock>;
  /**
   * True when the result reports a failure. Spelled `is_error` by earlier versions (Anthropic's wire
   * spelling, which the request mappers still write): transcripts and SDK input with that spelling
   * are read as this (`tool-result-spelling.ts`).
   */
  isError?: boolean;
}

/** Any block that may appear in a message. */
export type ContentBlock =
  | TextBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | ToolUseBlock
  | ToolResultBlock
  | ImageBlock;

/** A message from the user side: a prompt, tool results, or both. */
export interface UserMessage {
  role: "user";
  content: string | ContentBlock[];
}

/** Why the model stopped (normalized across providers). `error` and `aborted` mean the call failed. */
export type StopReason =
  | "end_turn"
  | "tool_use"
  | "max_tokens"
  | "stop_sequence"
  | "refusal"
  | "error"
  | "aborted";

/** Token counts of one call. Cache fields are 0 when the provider does not report them. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  /**
   * Of `output_tokens`, how many the model spent reasoning (OpenAI `reasoning_tokens`, Gemini
   * `thoughtsTokenCount`); informational, already counted and priced in `output_tokens`.
   */
  reasoning_tokens?: number;
}

/** A message written by the model, with what the provider said about it. */
export interface AssistantMessage {
  role: "assistant";
  content: ContentBlock[];
  /** Provider message id, when the provider gives one. */
  id?: string;
  /** The model that answered, as `provider/model`. */
  model?: string;
  stop_reason?: StopReason;
  stop_sequence?: string | null;
  /**
   * The provider's own word for why it stopped, when it says more than `stop_reason`: Gemini's
   * `SAFETY` or `RECITATION` behind a `refusal`, the Responses API's `max_output_tokens`.
   */
  stop_details?: string;
  usage?: Usage;
  /**
   * True when the message was cut off by `max_tokens` while a tool call was being written. Its tool
   * calls are incomplete and must never be run.
   */
  truncated?: boolean;
  /** Set when the call failed (`stop_reason` is `error` or `aborted`): what went wrong. */
  error_message?: string;
  /** Set with `error_message`: the kind of provider failure (`rate_limit`, `authentication`, …). */
  error_kind?: string;
}

/** One message of a conversation. */
export type Message = UserMessage | AssistantMessage;

/** A tool as the model sees it. */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the tool's input (an object schema). */
  input_schema: Record<string, unknown>;
}

/** How the model may choose tools. */
export type ToolChoice =
  | { type: "auto" }
  | { type: "any" }
  | { type: "none" }
  | { type: "tool"; name: string };

/**
 * Extended thinking for one call: a fixed token budget, adaptive (the model decides how much to
 * think), or off. `display` asks Anthropic for summarized or omitted thinking text.
 */
export type ThinkingConfig =
  | { type: "enabled"; budgetTokens: number; display?: "summarized" | "omitted" }
  | { type: "adaptive"; display?: "summarized" | "omitted" }
  | { type: "disabled" };

/**
 * How hard the model works: Anthropic's `output_config.effort` (`low` … `max`), OpenAI's
 * `reasoning_effort` (`minimal` … `xhigh`).
 */
export type EffortLevel = "minimal" | "low" | "medium" | "high" | "xhigh" | "max";

/** One model call, independent of the provider. */
export interface ModelRequest {
  /** Model id without the provider prefix (the provider is chosen separately). */
  model: string;
  system?: string;
  messages: Message[];
  tools?: ToolDefinition[];
  maxTokens?: number;
  temperature?: number;
  stopSequences?: string[];
  toolChoice?: ToolChoice;
  /** Extended thinking; wins over `thinkingBudget`. */
  thinking?: ThinkingConfig;
  /** @deprecated Use `thinking: { type: "enabled", budgetTokens }`. 0 or absent: no thinking. */
  thinkingBudget?: number;
  /** Reasoning effort; sent as the provider defines it. */
  effort?: EffortLevel;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** Events of one streamed model call, in order. */
export type StreamEvent =
  | { type: "message_start"; id?: string; model: string }
  | { type: "text_start"; index: number }
  | { type: "text_delta"; index: number; delta: string }
  | { type: "text_end"; index: number; text: string }
  | { type: "thinking_start"; index: number }
  | { type: "thinking_delta"; index: number; delta: string }
  | { type: "thinking_end"; index: number; thinking: string; signature?: string }
  | { type: "redacted_thinking"; index: number; data: string }
  | { type: "toolcall_start"; index: number; id: string; name: string }
  | { type: "toolcall_delta"; index: number; id: string; delta: string }
  | { type: "toolcall_end"; index: number; toolCall: ToolUseBlock }
  | { type: "usage"; usage: Usage }
  | { type: "message_end"; message: AssistantMessage };

/** The neutral stream of one call. Iterating it performs the call. */
export type ModelStream = AsyncIterable<StreamEvent>;

/** A model provider: turns a neutral request into a neutral stream. */
export interface Provider {
  /** Short name used in `provider/model` ids, e.g. `anthropic`. */
  readonly name: string;
  /**
   * Streams one model call. Throws a `ProviderError` (see errors.ts) for a failed request; events are
   * only yielded for a call the provider accepted.
   */
  stream(request: ModelRequest): ModelStream;
  /**
   * Releases what the provider holds between calls (its kept-alive connections). Optional: a custom
   * provider without one holds nothing. A call after `close` still works, on new connections.
   */
  close?(): void;
}

/**
 * Answers a provider's API key before each request, so a short-lived or rotated key is fresh; undefined falls back to
 * the configured key or the environment. The one signature of `getApiKey`, for providers and `query()`.
 */
export type ApiKeyResolver = (provider: string) => string | undefined | Promise<string | undefined>;

/** How to reach a provider: key, base URL and extra headers. Unset fields fall back to the environment. */
export interface ProviderOptions {
  /** Name used in `provider/model` ids; defaults to the provider's kind (`anthropic`, `openai`). */
  name?: string;
  apiKey?: string;
  /** e.g. `http://127.0.0.1:4000` for a LiteLLM proxy; defaults to `*_BASE_URL` or the public API. */
  baseURL?: string;
  headers?: Record<string, string>;
  /** Called before each request; its answer wins over `apiKey`, so a rotated key is used at once. */
  getApiKey?: ApiKeyResolver;
  /**
   * Stall limits of each call (connect, first byte, silence mid-stream). Unset ones come from
   * `GOAT_CONNECT_TIMEOUT_MS`, `GOAT_FIRST_BYTE_TIMEOUT_MS`, `GOAT_STREAM_IDLE_TIMEOUT_MS`, then 30 s / 60 s / 60 s.
   */
  timeouts?: ProviderTimeouts;
  /**
   * An HTTP proxy for this provider's calls (`http://user:pass@proxy:3128`, reached with CONNECT), or
   * `false` for none. Default: `HTTPS_PROXY` / `HTTP_PROXY`, skipping `NO_PROXY` hosts and loopback ones.
   */
  proxy?: string | false;
  /** Where keys, base URLs and the other variables are read; default `process.env`. */
  env?: Record<string, string | undefined>;
}

/** Returns a zeroed usage record. */
export function emptyUsage(): Usage {
  return { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
}

/** Adds `b` into `a` in place and returns `a`. */
export function addUsage(a: Usage, b: Usage): Usage {
  a.input_tokens += b.input_tokens;
  a.output_tokens += b.output_tokens;
  a.cache_read_input_tokens += b.cache_read_input_tokens;
  a.cache_creation_input_tokens += b.cache_creation_input_tokens;
  if (b.reasoning_tokens !== undefined) a.reasoning_tokens = (a.reasoning_tokens ?? 0) + b.reasoning_tokens;
  return a;
}

/** The tool calls of an assistant message, decided from its content (not from the stop reason). */
export function toolCallsOf(message: AssistantMessage): ToolUseBlock[] {
  return message.content.filter((b): b is ToolUseBlock => b.type === "tool_use");
}

/** The concatenated text of a message's text blocks. */
export function textOf(message: Message): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .filter((b): b is TextBlock => b.type === "text")
    .map((b) => b.text)
    .join("");
}
