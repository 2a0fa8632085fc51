/**
 * The Anthropic Messages API provider: neutral request → `POST /v1/messages` with `stream: true`, and
 * the SSE answer → neutral stream events. Prompt-cache breakpoints go on the system prompt and on the
 * last message, so each turn of a long session reads the previous turns from the cache.
 */

import type { AnthropicContentBlock, AnthropicStreamEvent, AnthropicUsage } from "./anthropic-events.js";
import { anthropicRequestJson } from "./anthropic-request.js";
import { createJsonCache } from "./body-json.js";
import { ProviderError } from "./errors.js";
import { pushMessageEnd, toolUseBlock } from "./finish.js";
import { kindForStreamError, missingKeyError } from "./http.js";
import { parseData, streamError } from "./sse-reader.js";
import type { WireDecoder } from "./stream-call.js";
import type { ContentBlock, Provider, ProviderOptions, StopReason, StreamEvent, Usage } from "./types.js";
import { createWireProvider, trimSlash, type WireContext, type WireProtocol } from "./wire-provider.js";

export { anthropicRequestBody, anthropicRequestJson } from "./anthropic-request.js";

const DEFAULT_BASE_URL = "https://api.anthropic.com";

/** Creates an Anthropic provider; key and base URL are resolved before each call (options, then env). */
export function createAnthropicProvider(options: ProviderOptions = {}): Provider {
  return createWireProvider("anthropic", options, anthropicProtocol);
}

/** The Messages API wire: `POST /v1/messages`, `x-api-key` (or a gateway's bearer token). */
function anthropicProtocol({ name, env, options }: WireContext): WireProtocol {
  const cache = createJsonCache();
  return {
    prepare(request, key) {
      const apiKey = key ?? options.apiKey ?? env.ANTHROPIC_API_KEY ?? "";
      const baseURL = trimSlash(options.baseURL ?? env.ANTHROPIC_BASE_URL ?? DEFAULT_BASE_URL);
      // Gateways often take a bearer token instead of a key, as Claude Code's ANTHROPIC_AUTH_TOKEN.
      const authToken = apiKey ? undefined : env.ANTHROPIC_AUTH_TOKEN;
      if (!apiKey && !authToken && baseURL === DEFAULT_BASE_URL)
        throw missingKeyError(name, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL");
      const headers: Record<string, string> = {
        accept: "text/event-stream",
        ...(authToken ? { authorization: `Bearer ${authToken}` } : { "x-api-key": apiKey }),
        "anthropic-version": "2023-06-01",
        ...options.headers,
        ...request.headers,
      };
      return { url: `${baseURL}/v1/messages`, headers, body: anthropicRequestJson(request, cache) };
    },
    decoder: (_request, model) => anthropicDecoder(name, model),
  };
}

const STOP_REASONS: Record<string, StopReason> = {
  end_turn: "end_turn",
  tool_use: "tool_use",
  max_tokens: "max_tokens",
  stop_sequence: "stop_sequence",
  refusal: "refusal",
  pause_turn: "end_turn",
  model_context_window_exceeded: "max_tokens",
};

type OpenBlock =
  | { kind: "text"; index: number; text: string }
  | { kind: "thinking"; index: number; thinking: string; signature?: string }
  | { kind: "tool"; index: number; id: string; name: string; json: string };

/** The Anthropic SSE decoder for one call (exported for tests that feed it events directly). */
export function anthropicDecoder(provider: string, model: string): WireDecoder {
  const content: ContentBlock[] = [];
  const open = new Map<number, OpenBlock>(); // by the wire's block index
  const skipped = new Set<number>(); // started blocks with no deltas to keep (server tools, redacted, new types)
  const usage: Usage = {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
  };
  let id: string | undefined;
  let stop: StopReason = "end_turn";
  let stopSequence: string | null = null;

  const self: WireDecoder & { ended: boolean; afterFirstDelta: boolean } = {
    ended: false,
    afterFirstDelta: false,
    finish: () => false, // a body that ends before message_stop is always incomplete
    onEvent(sse, out) {
      if (sse.event === "ping") return;
      const ev = parseData(provider, sse.data, self.afterFirstDelta) as AnthropicStreamEvent;
      switch (ev.type) {
        case "message_start":
          id = ev.message?.id;
          readUsage(usage, ev.message?.usage);
          out.push({ type: "message_start", id, model });
          return;
        case "content_block_start":
          startBlock(ev.index, ev.content_block, out);
          if (!open.has(ev.index)) skipped.add(ev.index);
          return;
        case "content_block_delta": {
          const b = open.get(ev.index);
          const d = ev.delta;
          // A delta for a block that never started would silently lose its text: the stream is broken.
          if (!b && !skipped.has(ev.index))
            throw orphanDelta(provider, ev.index, d?.type, self.afterFirstDelta);
          if (d?.type === "text_delta" && b?.kind === "text") {
            b.text += d.text;
            self.afterFirstDelta = true;
            out.push({ type: "text_delta", index: b.index, delta: d.text });
          } else if (d?.type === "thinking_delta" && b?.kind === "thinking") {
            b.thinking += d.thinking;
            self.afterFirstDelta = true;
            out.push({ type: "thinking_delta", index: b.index, delta: d.thinking });
          } else if (d?.type === "signature_delta" && b?.kind === "thinking") {
            b.signature = (b.signature ?? "") + d.signature;
          } else if (d?.type === "input_json_delta" && b?.kind === "tool") {
            b.json += d.partial_json;
            self.afterFirstDelta = true;
            out.push({ type: "toolcall_delta", index: b.index, id: b.id, delta: d.partial_json });
          }
          return;
        }
        case "content_block_stop": {
          const b = open.get(ev.index);
          open.delete(ev.index);
          if (b) closeBlock(b, content, out);
          return;
        }
        case "message_delta":
          if (ev.delta?.stop_reason) stop = STOP_REASONS[ev.delta.stop_reason] ?? "end_turn";
          if (ev.delta?.stop_sequence !== undefined) stopSequence = ev.delta.stop_sequence;
          readUsage(usage, ev.usage);
          return;
        case "message_stop": {
          // Blocks left open by a server that skipped content_block_stop are closed here.
          for (const b of open.values()) closeBlock(b, content, out);
          open.clear();
          pushMessageEnd(
            out,
            { content, id, model, usage },
            stop,
            stopSequence !== null ? { stop_sequence: stopSequence } : {},
          );
          self.ended = true;
          return;
        }
        case "error": {
          const type: string | undefined = ev.error?.type;
          const text: string = ev.error?.message ?? "unknown error";
          throw new ProviderError({
            kind: kindForStreamError(type, text),
            provider,
            afterFirstDelta: self.afterFirstDelta,
            message: `${provider} stream error${type ? ` (${type})` : ""}: ${text}`,
          });
        }
      }
    },
  };

  function startBlock(wireIndex: number, cb: AnthropicContentBlock | undefined, out: StreamEvent[]): void {
    const index = content.length;
    if (cb?.type === "text") {
      open.set(wireIndex, { kind: "text", index, text: "" });
      content.push({ type: "text", text: "" });
      out.push({ type: "text_start", index });
    } else if (cb?.type === "thinking") {
      open.set(wireIndex, { kind: "thinking", index, thinking: "" });
      content.push({ type: "thinking", thinking: "" });
      out.push({ type: "thinking_start", index });
    } else if (cb?.type === "redacted_thinking") {
      content.push({ type: "redacted_thinking", data: cb.data });
      out.push({ type: "redacted_thinking", index, data: cb.data });
    } else if (cb?.type === "tool_use") {
      open.set(wireIndex, { kind: "tool", index, id: cb.id, name: cb.name, json: "" });
      content.push({ type: "tool_use", id: cb.id, name: cb.name, input: {} });
      out.push({ type: "toolcall_start", index, id: cb.id, name: cb.name });
    }
    // Server-tool blocks and future block types are skipped.
  }

  return self;
}

function orphanDelta(
  provider: string,
  index: unknown,
  deltaType: unknown,
  afterFirstDelta: boolean,
): ProviderError {
  return streamError(
    provider,
    `malformed stream: a ${typeof deltaType === "string" ? deltaType : "content_block_delta"} for block ${JSON.stringify(index)} arrived before that block's content_block_start`,
    afterFirstDelta,
  );
}

function closeBlock(b: OpenBlock, content: ContentBlock[], out: StreamEvent[]): void {
  if (b.kind === "text") {
    content[b.index] = { type: "text", text: b.text };
    out.push({ type: "text_end", index: b.index, text: b.text });
  } else if (b.kind === "thinking") {
    const block: ContentBlock = { type: "thinking", thinking: b.thinking };
    if (b.signature !== undefined) block.signature = b.signature;
    content[b.index] = block;
    out.push({ type: "thinking_end", index: b.index, thinking: b.thinking, signature: b.signature });
  } else {
    const toolCall = toolUseBlock(b.id, b.name, b.json);
    content[b.index] = toolCall;
    out.push({ type: "toolcall_end", index: b.index, toolCall });
  }
}

function readUsage(usage: Usage, u: AnthropicUsage | undefined): void {
  if (!u) return;
  // message_delta usage is cumulative; fields it omits keep their message_start values.
  if (typeof u.input_tokens === "number") usage.input_tokens = u.input_tokens;
  if (typeof u.output_tokens === "number") usage.output_tokens = u.output_tokens;
  if (typeof u.cache_read_input_tokens === "number")
    usage.cache_read_input_tokens = u.cache_read_input_tokens;
  if (typeof u.cache_creation_input_tokens === "number")
    usage.cache_creation_input_tokens = u.cache_creation_input_tokens;
}
