/**
 * The OpenAI Chat Completions provider, which also serves the compatible gateways (LiteLLM, vLLM,
 * Ollama, llama.cpp's server): neutral request → `POST /chat/completions` with `stream: true`, and the
 * SSE chunks → neutral stream events. Gateways differ in small ways (tool-call ids sent once or on every
 * chunk, `stop` with tool calls, no `[DONE]`); the parser accepts all of them.
 */

import { createJsonCache } from "./body-json.js";
import { ProviderError } from "./errors.js";
import { pushMessageEnd, toolUseBlock } from "./finish.js";
import { kindForStreamError, missingKeyError } from "./http.js";
import type { OpenAIChunk, OpenAIToolCallDelta, OpenAIUsage } from "./openai-events.js";
import { openaiRequestJson } from "./openai-request.js";
import { isOpenAIReasoningModel, openaiResponsesProtocol } from "./openai-responses.js";
import { parseData } from "./sse-reader.js";
import type { WireDecoder } from "./stream-call.js";
import type {
  ContentBlock,
  ModelRequest,
  Provider,
  ProviderOptions,
  StopReason,
  StreamEvent,
  Usage,
} from "./types.js";
import { createWireProvider, trimSlash, type WireContext, type WireProtocol } from "./wire-provider.js";

const DEFAULT_BASE_URL = "https://api.openai.com/v1";

/**
 * Creates an OpenAI provider; key and base URL are resolved before each call (options, then env).
 * On OpenAI's own API a reasoning model (o-series, GPT-5, Codex) is called through the Responses API,
 * the only OpenAI wire that carries reasoning from one turn to the next (its encrypted reasoning
 * items); other models, and every other base URL (LiteLLM, vLLM, Ollama…, which speak Chat Completions
 * and not always Responses), use Chat Completions. `GOAT_OPENAI_WIRE=chat|responses` forces one.
 */
export function createOpenAIProvider(options: ProviderOptions = {}): Provider {
  return createWireProvider("openai", options, (context) => {
    const chat = openaiChatProtocol(context);
    const responses = openaiResponsesProtocol(context);
    const wireFor = (request: ModelRequest): WireProtocol =>
      usesResponses(request.model, context) ? responses : chat;
    return {
      prepare: (request, key) => wireFor(request).prepare(request, key),
      decoder: (request, model) => wireFor(request).decoder(request, model),
    };
  });
}

/** True when `model` on this provider goes through the Responses API (see createOpenAIProvider). */
export function usesResponses(
  model: string,
  { env, options }: Pick<WireContext, "env" | "options">,
): boolean {
  const forced = env.GOAT_OPENAI_WIRE;
  if (forced === "responses" || forced === "chat") return forced === "responses";
  const baseURL = options.baseURL ?? env.OPENAI_BASE_URL ?? DEFAULT_BASE_URL;
  return baseURL.startsWith("https://api.openai.com/") && isOpenAIReasoningModel(model);
}

/** The Chat Completions wire: `POST {base}/chat/completions`, a bearer key (none for local servers). */
function openaiChatProtocol({ name, env, options }: WireContext): WireProtocol {
  const cache = createJsonCache();
  return {
    prepare(request, key) {
      const apiKey = key ?? options.apiKey ?? env.OPENAI_API_KEY;
      const baseURL = trimSlash(options.baseURL ?? env.OPENAI_BASE_URL ?? DEFAULT_BASE_URL);
      const official = baseURL.startsWith("https://api.openai.com/");
      if (!apiKey && official) throw missingKeyError(name, "OPENAI_API_KEY", "OPENAI_BASE_URL");
      const headers: Record<string, string> = { accept: "text/event-stream" };
      // Local servers (Ollama, llama.cpp) need no key; an empty bearer would confuse some of them.
      if (apiKey) headers.authorization = `Bearer ${apiKey}`;
      Object.assign(headers, options.headers, request.headers);
      return {
        url: `${baseURL}/chat/completions`,
        headers,
        body: openaiRequestJson(request, official, cache),
      };
    },
    decoder: (_request, model) => openaiDecoder(name, model),
  };
}

const FINISH_REASONS: Record<string, StopReason> = {
  stop: "end_turn",
  eos: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  function_call: "tool_use",
  content_filter: "refusal",
};

interface OpenTool {
  index: number; // content index
  id: string;
  name: string;
  args: string;
}

/** The Chat Completions SSE decoder for one call. */
export function openaiDecoder(provider: string, model: string): WireDecoder {
  const content: ContentBlock[] = [];
  const usage: Usage = {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
  };
  const tools: OpenTool[] = [];
  const toolById = new Map<string, OpenTool>();
  const toolByWireIndex = new Map<number, OpenTool>();
  let text: { index: number; text: string } | undefined;
  let thinking: { index: number; thinking: string; signature?: string } | undefined;
  let id: string | undefined;
  let started = false;
  let finish: string | undefined;

  const closeProse = (out: StreamEvent[]): void => {
    if (text) {
      content[text.index] = { type: "text", text: text.text };
      out.push({ type: "text_end", index: text.index, text: text.text });
      text = undefined;
    }
    if (thinking) {
      const { index, signature } = thinking;
      content[index] = signature
        ? { type: "thinking", thinking: thinking.thinking, signature }
        : { type: "thinking", thinking: thinking.thinking };
      out.push({ type: "thinking_end", index, thinking: thinking.thinking, signature });
      thinking = undefined;
    }
  };

  const end = (out: StreamEvent[]): void => {
    if (!started) out.push({ type: "message_start", id, model });
    closeProse(out);
    for (const tool of tools) {
      const toolCall = toolUseBlock(tool.id, tool.name, tool.args);
      content[tool.index] = toolCall;
      out.push({ type: "toolcall_end", index: tool.index, toolCall });
    }
    pushMessageEnd(out, { content, id, model, usage }, FINISH_REASONS[finish ?? "stop"] ?? "end_turn");
    self.ended = true;
  };

  const toolCallDelta = (tc: OpenAIToolCallDelta, out: StreamEvent[]): void => {
    const wireId: string | undefined = typeof tc.id === "string" && tc.id !== "" ? tc.id : undefined;
    const wireIndex: number = typeof tc.index === "number" ? tc.index : -1;
    // Keyed by id when the gateway sends one (some repeat it on every chunk, some send every parallel
    // call at index 0); by index for chunks that carry only the index, where a new index is a new call
    // (gateways that send no ids at all); by position only for a chunk with neither.
    let tool = wireId
      ? toolById.get(wireId)
      : wireIndex >= 0
        ? toolByWireIndex.get(wireIndex)
        : tools[tools.length - 1];
    if (!tool) {
      closeProse(out);
      const index = content.length;
      tool = { index, id: wireId ?? `call_${index}`, name: tc.function?.name ?? "", args: "" };
      tools.push(tool);
      if (wireId) toolById.set(wireId, tool);
      toolByWireIndex.set(wireIndex, tool);
      content.push({ type: "tool_use", id: tool.id, name: tool.name, input: {} });
      out.push({ type: "toolcall_start", index, id: tool.id, name: tool.name });
    } else if (!tool.name && tc.function?.name) {
      tool.name = tc.function.name;
    }
    const args = tc.function?.arguments;
    const piece =
      typeof args === "string" ? args : args && typeof args === "object" ? JSON.stringify(args) : "";
    if (piece !== "") {
      tool.args += piece;
      self.afterFirstDelta = true;
      out.push({ type: "toolcall_delta", index: tool.index, id: tool.id, delta: piece });
    }
  };

  const self: WireDecoder & { ended: boolean; afterFirstDelta: boolean } = {
    ended: false,
    afterFirstDelta: false,
    // Some gateways end the body without [DONE]; a finish_reason is enough to know the answer is whole.
    finish(out) {
      if (finish === undefined) return false;
      end(out);
      return true;
    },
    onEvent(sse, out) {
      if (sse.data === "[DONE]") {
        end(out);
        return;
      }
      const chunk = parseData(provider, sse.data, self.afterFirstDelta) as OpenAIChunk;
      if (chunk.error) throw chunkError(provider, chunk.error, self.afterFirstDelta);
      if (!started) {
        started = true;
        id = chunk.id || undefined;
        out.push({ type: "message_start", id, model });
      }
      if (chunk.usage) readUsage(usage, chunk.usage);
      const choice = chunk.choices?.[0];
      if (!choice) return;
      const d = choice.delta ?? {};
      const reasoning = d.reasoning_content ?? d.reasoning;
      if (typeof reasoning === "string" && reasoning !== "") {
        if (!thinking) {
          closeProse(out);
          thinking = { index: content.length, thinking: "" };
          content.push({ type: "thinking", thinking: "" });
          out.push({ type: "thinking_start", index: thinking.index });
        }
        thinking.thinking += reasoning;
        self.afterFirstDelta = true;
        out.push({ type: "thinking_delta", index: thinking.index, delta: reasoning });
      }
      // LiteLLM sends an Anthropic model's thinking signature in `thinking_blocks`; it must go back.
      if (thinking && Array.isArray(d.thinking_blocks)) {
        for (const b of d.thinking_blocks) {
          if (typeof b?.signature === "string" && b.signature !== "") thinking.signature = b.signature;
        }
      }
      if (typeof d.content === "string" && d.content !== "") {
        if (!text) {
          closeProse(out);
          text = { index: content.length, text: "" };
          content.push({ type: "text", text: "" });
          out.push({ type: "text_start", index: text.index });
        }
        text.text += d.content;
        self.afterFirstDelta = true;
        out.push({ type: "text_delta", index: text.index, delta: d.content });
      }
      if (Array.isArray(d.tool_calls)) for (const tc of d.tool_calls) toolCallDelta(tc, out);
      if (choice.finish_reason) finish = choice.finish_reason;
    },
  };
  return self;
}

function chunkError(provider: string, error: unknown, afterFirstDelta: boolean): ProviderError {
  const fields = (typeof error === "object" ? error : null) as {
    message?: unknown;
    code?: unknown;
    type?: unknown;
  } | null;
  const message = typeof error === "string" ? error : String(fields?.message ?? JSON.stringify(error));
  const code = typeof fields?.code === "string" ? fields.code : fields?.type;
  const type = typeof code === "string" ? code : undefined;
  return new ProviderError({
    kind: kindForStreamError(type, message),
    provider,
    afterFirstDelta,
    message: `${provider} stream error${type ? ` (${type})` : ""}: ${message}`,
  });
}

function readUsage(usage: Usage, u: OpenAIUsage): void {
  const cached = u.prompt_tokens_details?.cached_tokens ?? u.cache_read_input_tokens ?? 0;
  // OpenAI counts cached tokens inside prompt_tokens; ours (like Anthropic's) counts them apart, so a
  // cost computed from the usage does not charge them twice.
  if (typeof u.prompt_tokens === "number") usage.input_tokens = Math.max(0, u.prompt_tokens - cached);
  if (typeof u.completion_tokens === "number") usage.output_tokens = u.completion_tokens;
  usage.cache_read_input_tokens = cached;
  if (typeof u.cache_creation_input_tokens === "number")
    usage.cache_creation_input_tokens = u.cache_creation_input_tokens;
}
