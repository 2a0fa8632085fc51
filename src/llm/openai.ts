/**
 * The OpenAI Chat Completions provider, which also serves the compatible gateways (LiteLLM, vLLM,
 * Ollama, llama.cpp's server): neutral request → `POST /chat/completions` with `stream: true`, and the
 * SSE chunks → neutral stream events. Gateways differ in small ways (tool-call ids sent once or on every
 * chunk, `stop` with tool calls, no `[DONE]`); the parser accepts all of them.
 */
import { ProviderError } from "./errors.js";
import { finalStop, toolUseBlock } from "./finish.js";
import {
  abortedError,
  createHttpTransport,
  kindForStreamError,
  parseData,
  readSse,
  streamError,
} from "./http.js";
import { openaiRequestBody } from "./openai-request.js";
import type {
  AssistantMessage,
  ContentBlock,
  ModelRequest,
  Provider,
  ProviderOptions,
  StopReason,
  StreamEvent,
  Usage,
} from "./types.js";

const DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** Creates an OpenAI-compatible provider; key and base URL are resolved before each call (options, then env). */
export function createOpenAIProvider(options: ProviderOptions = {}): Provider {
  const name = options.name ?? "openai";
  const transport = createHttpTransport(name);
  return {
    name,
    async *stream(request) {
      const apiKey = (await options.getApiKey?.(name)) ?? options.apiKey ?? process.env.OPENAI_API_KEY;
      const baseURL = (options.baseURL ?? process.env.OPENAI_BASE_URL ?? DEFAULT_BASE_URL).replace(
        /\/+$/,
        "",
      );
      const headers: Record<string, string> = { accept: "text/event-stream" };
      // Local servers (Ollama, llama.cpp) need no key; sending an empty bearer would confuse some.
      if (apiKey) headers.authorization = `Bearer ${apiKey}`;
      Object.assign(headers, options.headers, request.headers);
      const official = new URL(baseURL).hostname === "api.openai.com";
      const body = JSON.stringify(openaiRequestBody(request, official));
      const res = await transport.post(`${baseURL}/chat/completions`, headers, body, request.signal);
      yield* parseOpenAIStream(name, request, res);
    },
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

async function* parseOpenAIStream(
  provider: string,
  request: ModelRequest,
  res: import("node:http").IncomingMessage,
): AsyncGenerator<StreamEvent> {
  const model = `${provider}/${request.model}`;
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
  let thinking: { index: number; thinking: string } | undefined;
  let id: string | undefined;
  let started = false;
  let finish: string | undefined;
  let done = false;
  let delta = false;

  function* closeProse(): Generator<StreamEvent> {
    if (text) {
      content[text.index] = { type: "text", text: text.text };
      yield { type: "text_end", index: text.index, text: text.text };
      text = undefined;
    }
    if (thinking) {
      content[thinking.index] = { type: "thinking", thinking: thinking.thinking };
      yield { type: "thinking_end", index: thinking.index, thinking: thinking.thinking };
      thinking = undefined;
    }
  }

  try {
    for await (const sse of readSse(provider, res, request.signal, () => delta)) {
      if (done) continue; // drain the body after [DONE] so the keep-alive socket can be reused
      if (sse.data === "[DONE]") {
        done = true;
        continue;
      }
      const chunk = parseData(provider, sse.data, delta);
      if (chunk.error) throw chunkError(provider, chunk.error, delta);
      if (!started) {
        started = true;
        id = chunk.id || undefined;
        yield { type: "message_start", id, model };
      }
      if (chunk.usage) readUsage(usage, chunk.usage);
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const d = choice.delta ?? {};
      const reasoning = d.reasoning_content ?? d.reasoning;
      if (typeof reasoning === "string" && reasoning !== "") {
        if (!thinking) {
          yield* closeProse();
          thinking = { index: content.length, thinking: "" };
          content.push({ type: "thinking", thinking: "" });
          yield { type: "thinking_start", index: thinking.index };
        }
        thinking.thinking += reasoning;
        delta = true;
        yield { type: "thinking_delta", index: thinking.index, delta: reasoning };
      }
      if (typeof d.content === "string" && d.content !== "") {
        if (!text) {
          yield* closeProse();
          text = { index: content.length, text: "" };
          content.push({ type: "text", text: "" });
          yield { type: "text_start", index: text.index };
        }
        text.text += d.content;
        delta = true;
        yield { type: "text_delta", index: text.index, delta: d.content };
      }
      if (Array.isArray(d.tool_calls)) {
        for (const tc of d.tool_calls) {
          const wireId: string | undefined = typeof tc.id === "string" && tc.id !== "" ? tc.id : undefined;
          const wireIndex: number = typeof tc.index === "number" ? tc.index : tools.length > 0 ? -1 : 0;
          // Keyed by id when the gateway repeats it; by index for chunks that carry only the index.
          let tool = wireId
            ? toolById.get(wireId)
            : (toolByWireIndex.get(wireIndex) ?? tools[tools.length - 1]);
          if (!tool) {
            yield* closeProse();
            tool = {
              index: content.length,
              id: wireId ?? `call_${content.length}`,
              name: tc.function?.name ?? "",
              args: "",
            };
            tools.push(tool);
            if (wireId) toolById.set(wireId, tool);
            toolByWireIndex.set(wireIndex, tool);
            content.push({ type: "tool_use", id: tool.id, name: tool.name, input: {} });
            yield { type: "toolcall_start", index: tool.index, id: tool.id, name: tool.name };
          } else if (!tool.name && tc.function?.name) {
            tool.name = tc.function.name;
          }
          const args = tc.function?.arguments;
          const piece =
            typeof args === "string" ? args : args && typeof args === "object" ? JSON.stringify(args) : "";
          if (piece !== "") {
            tool.args += piece;
            delta = true;
            yield { type: "toolcall_delta", index: tool.index, id: tool.id, delta: piece };
          }
        }
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  } catch (err) {
    // A connection that breaks after [DONE] lost nothing: the answer is complete.
    if (!done) throw err;
  }
  if (!done && finish === undefined) {
    if (request.signal?.aborted) throw abortedError(provider);
    throw streamError(provider, "the connection closed before the answer finished (no finish_reason)", delta);
  }
  if (!started) yield { type: "message_start", id, model };
  yield* closeProse();
  for (const tool of tools) {
    const toolCall = toolUseBlock(tool.id, tool.name, tool.args);
    content[tool.index] = toolCall;
    yield { type: "toolcall_end", index: tool.index, toolCall };
  }
  const { stop_reason, truncated } = finalStop(content, FINISH_REASONS[finish ?? "stop"] ?? "end_turn");
  const message: AssistantMessage = { role: "assistant", content, id, model, stop_reason, usage };
  if (truncated) message.truncated = true;
  yield { type: "usage", usage: { ...usage } };
  yield { type: "message_end", message };
}

function chunkError(provider: string, error: any, afterFirstDelta: boolean): ProviderError {
  const message: string = typeof error === "string" ? error : (error?.message ?? JSON.stringify(error));
  const type: string | undefined = typeof error?.code === "string" ? error.code : error?.type;
  return new ProviderError({
    kind: kindForStreamError(type, message),
    provider,
    afterFirstDelta,
    message: `${provider} stream error${type ? ` (${type})` : ""}: ${message}`,
  });
}

function readUsage(usage: Usage, u: any): void {
  const cached = u.prompt_tokens_details?.cached_tokens ?? u.cache_read_input_tokens ?? 0;
  // OpenAI counts cached tokens inside prompt_tokens; ours (like Anthropic's) counts them apart, so a
  // cost computed from the usage does not charge them twice.
  if (typeof u.prompt_tokens === "number") usage.input_tokens = Math.max(0, u.prompt_tokens - cached);
  if (typeof u.completion_tokens === "number") usage.output_tokens = u.completion_tokens;
  usage.cache_read_input_tokens = cached;
  if (typeof u.cache_creation_input_tokens === "number")
    usage.cache_creation_input_tokens = u.cache_creation_input_tokens;
}
