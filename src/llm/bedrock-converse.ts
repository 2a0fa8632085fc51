/**
 * Bedrock's Converse API, for the models on Bedrock that are not Claude (Llama, Mistral, Nova,
 * DeepSeek, …): neutral request → `POST /model/{id}/converse-stream` body, and its event-stream
 * events (`messageStart`, `contentBlockStart/Delta/Stop`, `messageStop`, `metadata`) → neutral events.
 * Claude on Bedrock takes the Messages body instead (bedrock.ts), which keeps every Claude feature.
 *
 * Prompt caching: for the models that take Converse's `cachePoint` blocks (Amazon Nova; Claude), one
 * goes after the system prompt and after the last message's last block (and after the last tool, for
 * Claude), where the Anthropic body puts its `cache_control` breakpoints, so each turn reads the turns
 * before it from the cache. Other models refuse the block, so they get none. A prefix shorter than the
 * model's minimum is simply not cached.
 */

import type { ConverseEvents, ConverseUsage } from "./bedrock-converse-events.js";
import { type JsonCache, objectJson, type RawJson, rawJson } from "./body-json.js";
import { ProviderError } from "./errors.js";
import { pushMessageEnd, toolUseBlock } from "./finish.js";
import { hasTools } from "./request-tools.js";
import { parseData } from "./sse-reader.js";
import type { WireDecoder } from "./stream-call.js";
import type {
  ContentBlock,
  Message,
  ModelRequest,
  StopReason,
  StreamEvent,
  ToolDefinition,
  Usage,
} from "./types.js";

const CACHE_POINT = { cachePoint: { type: "default" } };
const CACHE_POINT_JSON = JSON.stringify(CACHE_POINT);

/** Where a model takes `cachePoint` blocks: Nova in the system prompt and messages, Claude in its tools too. */
interface CacheFields {
  prompt: boolean;
  tools: boolean;
}

function cacheFields(model: string): CacheFields {
  if (/anthropic\.claude|^claude-/i.test(model)) return { prompt: true, tools: true };
  if (/amazon\.nova/i.test(model)) return { prompt: true, tools: false };
  return { prompt: false, tools: false };
}

/** The ConverseStream body for a neutral request (exported for golden tests). */
export function converseRequestBody(request: ModelRequest): Record<string, unknown> {
  const caching = cacheFields(request.model);
  const messages = request.messages.map(wireMessage);
  if (caching.prompt && messages.length > 0) markCached(messages[messages.length - 1]);
  let tools: Record<string, unknown>[] | undefined;
  if (hasTools(request)) {
    tools = request.tools.map(wireTool);
    if (caching.tools) tools.push(CACHE_POINT);
  }
  return bodyFields(request, caching, messages, tools && toolConfig(request, tools));
}

/**
 * The same body as JSON text, exactly `JSON.stringify(converseRequestBody(request))`, with the
 * messages before the last one and the tools taken from `cache` (body-json.ts): a long session
 * re-encodes only what changed since its previous call. `cache` must serve this wire alone (its tool
 * entries are this wire's JSON).
 */
export function converseRequestJson(request: ModelRequest, cache: JsonCache): string {
  const n = request.messages.length;
  if (n <= 1) return JSON.stringify(converseRequestBody(request));
  const caching = cacheFields(request.model);
  const earlier = cache.messages(request.messages, n - 1, encodeMessage);
  // The last message carries the cache point, which moves every call: encoded fresh, never cached.
  const last = wireMessage(request.messages[n - 1]);
  if (caching.prompt) markCached(last);
  const messages = earlier === "" ? JSON.stringify(last) : `${earlier},${JSON.stringify(last)}`;
  let config: RawJson | undefined;
  if (hasTools(request)) {
    const pieces = request.tools.map((t) => cache.tool(t, encodeTool));
    if (caching.tools) pieces.push(CACHE_POINT_JSON);
    config = rawJson(objectJson(toolConfig(request, rawJson(`[${pieces.join(",")}]`))));
  }
  return objectJson(bodyFields(request, caching, rawJson(`[${messages}]`), config));
}

/** The body's fields in wire order, with messages and the tool configuration already converted. */
function bodyFields(
  request: ModelRequest,
  caching: CacheFields,
  messages: unknown,
  config: unknown,
): Record<string, unknown> {
  const body: Record<string, unknown> = { messages };
  if (request.system)
    body.system = caching.prompt ? [{ text: request.system }, CACHE_POINT] : [{ text: request.system }];
  const inference: Record<string, unknown> = {};
  if (request.maxTokens !== undefined) inference.maxTokens = request.maxTokens;
  if (request.temperature !== undefined) inference.temperature = request.temperature;
  if (request.stopSequences && request.stopSequences.length > 0)
    inference.stopSequences = request.stopSequences;
  if (Object.keys(inference).length > 0) body.inferenceConfig = inference;
  if (config !== undefined) body.toolConfig = config;
  return body;
}

/** `toolConfig`: the tools (converted) and the choice. */
function toolConfig(request: ModelRequest, tools: unknown): Record<string, unknown> {
  const config: Record<string, unknown> = { tools };
  const choice = request.toolChoice;
  // Converse has no "none": the tools stay declared (earlier turns used them) and the choice is left out.
  if (choice?.type === "auto") config.toolChoice = { auto: {} };
  else if (choice?.type === "any") config.toolChoice = { any: {} };
  else if (choice?.type === "tool") config.toolChoice = { tool: { name: choice.name } };
  return config;
}

type WireMessage = { role: string; content: Record<string, unknown>[] };

function wireMessage(m: Message): WireMessage {
  return {
    role: m.role,
    content: typeof m.content === "string" ? [{ text: m.content }] : m.content.flatMap(converseBlock),
  };
}

/** A cache point after the message's last block (none on an empty message: nothing to cache). */
function markCached(message: WireMessage): void {
  if (message.content.length > 0) message.content.push(CACHE_POINT);
}

function wireTool(t: ToolDefinition): Record<string, unknown> {
  return { toolSpec: { name: t.name, description: t.description, inputSchema: { json: t.input_schema } } };
}

const encodeMessage = (m: Message): string => JSON.stringify(wireMessage(m));
const encodeTool = (t: ToolDefinition): string => JSON.stringify(wireTool(t));

const IMAGE_FORMATS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/gif": "gif",
  "image/webp": "webp",
};

function converseImage(block: Extract<ContentBlock, { type: "image" }>): Record<string, unknown> {
  // Converse takes image bytes or an S3 location, never a web URL: the model is told what it cannot see.
  if (block.source.type === "url")
    return { text: `[image at ${block.source.url} not sent: Bedrock Converse takes inline images only]` };
  return {
    image: { format: IMAGE_FORMATS[block.source.media_type] ?? "png", source: { bytes: block.source.data } },
  };
}

function converseBlock(block: ContentBlock): Record<string, unknown>[] {
  switch (block.type) {
    case "text":
      return block.text === "" ? [] : [{ text: block.text }];
    case "image":
      return [converseImage(block)];
    case "tool_use":
      return [{ toolUse: { toolUseId: block.id, name: block.name, input: block.input } }];
    case "tool_result": {
      const content =
        typeof block.content === "string"
          ? [{ text: block.content }]
          : block.content.map((c) => (c.type === "text" ? { text: c.text } : converseImage(c)));
      return [
        {
          toolResult: { toolUseId: block.tool_use_id, content, status: block.isError ? "error" : "success" },
        },
      ];
    }
    case "thinking":
      return [
        {
          reasoningContent: {
            reasoningText: {
              text: block.thinking,
              ...(block.signature ? { signature: block.signature } : {}),
            },
          },
        },
      ];
    case "redacted_thinking":
      return [{ reasoningContent: { redactedContent: block.data } }];
  }
}

const STOP_REASONS: Record<string, StopReason> = {
  end_turn: "end_turn",
  tool_use: "tool_use",
  max_tokens: "max_tokens",
  stop_sequence: "stop_sequence",
  guardrail_intervened: "refusal",
  content_filtered: "refusal",
  model_context_window_exceeded: "max_tokens",
};

type Open =
  | { kind: "text"; index: number; text: string }
  | { kind: "thinking"; index: number; thinking: string; signature?: string }
  | { kind: "tool"; index: number; id: string; name: string; json: string };

/** The ConverseStream decoder for one call; its events come from the event-stream framing. */
export function converseDecoder(provider: string, model: string): WireDecoder {
  const content: ContentBlock[] = [];
  const open = new Map<number, Open>();
  const usage: Usage = {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
  };
  let stop: StopReason | undefined;
  let started = false;

  const start = (out: StreamEvent[]): void => {
    if (started) return;
    started = true;
    out.push({ type: "message_start", model });
  };
  const end = (out: StreamEvent[]): void => {
    for (const b of open.values()) close(b, out);
    open.clear();
    pushMessageEnd(out, { content, model, usage }, stop ?? "end_turn");
    self.ended = true;
  };
  const close = (b: Open, out: StreamEvent[]): void => {
    if (b.kind === "text") {
      content[b.index] = { type: "text", text: b.text };
      out.push({ type: "text_end", index: b.index, text: b.text });
    } else if (b.kind === "thinking") {
      content[b.index] = {
        type: "thinking",
        thinking: b.thinking,
        ...(b.signature ? { signature: b.signature } : {}),
      };
      out.push({ type: "thinking_end", index: b.index, thinking: b.thinking, signature: b.signature });
    } else {
      const toolCall = toolUseBlock(b.id, b.name, b.json);
      content[b.index] = toolCall;
      out.push({ type: "toolcall_end", index: b.index, toolCall });
    }
  };
  /** The block at a wire index, opened as `kind` on its first delta (text and reasoning have no start event). */
  const blockFor = (wire: number, kind: "text" | "thinking", out: StreamEvent[]): Open => {
    const existing = open.get(wire);
    if (existing) return existing;
    const index = content.length;
    const b: Open = kind === "text" ? { kind, index, text: "" } : { kind, index, thinking: "" };
    content.push(kind === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "" });
    out.push({ type: kind === "text" ? "text_start" : "thinking_start", index });
    open.set(wire, b);
    return b;
  };

  const self: WireDecoder & { ended: boolean; afterFirstDelta: boolean } = {
    ended: false,
    afterFirstDelta: false,
    // Bedrock sends `metadata` (the usage) after `messageStop`; a body that ends between them is complete.
    finish(out) {
      if (stop === undefined) return false;
      end(out);
      return true;
    },
    onEvent(sse, out) {
      // Typed per case below by the event's name, which the frame carries beside the JSON.
      const data = parseData(provider, sse.data, self.afterFirstDelta);
      switch (sse.event) {
        case "messageStart":
          start(out);
          return;
        case "contentBlockStart": {
          const ev = data as ConverseEvents["contentBlockStart"];
          start(out);
          const tool = ev.start?.toolUse;
          if (!tool) return;
          const index = content.length;
          open.set(ev.contentBlockIndex, {
            kind: "tool",
            index,
            id: tool.toolUseId,
            name: tool.name,
            json: "",
          });
          content.push({ type: "tool_use", id: tool.toolUseId, name: tool.name, input: {} });
          out.push({ type: "toolcall_start", index, id: tool.toolUseId, name: tool.name });
          return;
        }
        case "contentBlockDelta": {
          const ev = data as ConverseEvents["contentBlockDelta"];
          start(out);
          const d = ev.delta ?? {};
          if (typeof d.text === "string") {
            const b = blockFor(ev.contentBlockIndex, "text", out);
            if (b.kind !== "text") return;
            b.text += d.text;
            self.afterFirstDelta = true;
            out.push({ type: "text_delta", index: b.index, delta: d.text });
          } else if (d.reasoningContent) {
            const b = blockFor(ev.contentBlockIndex, "thinking", out);
            if (b.kind !== "thinking") return;
            if (typeof d.reasoningContent.text === "string") {
              b.thinking += d.reasoningContent.text;
              self.afterFirstDelta = true;
              out.push({ type: "thinking_delta", index: b.index, delta: d.reasoningContent.text });
            }
            if (typeof d.reasoningContent.signature === "string")
              b.signature = (b.signature ?? "") + d.reasoningContent.signature;
          } else if (d.toolUse) {
            const b = open.get(ev.contentBlockIndex);
            if (b?.kind !== "tool") throw malformed(provider, ev.contentBlockIndex, self.afterFirstDelta);
            b.json += d.toolUse.input ?? "";
            self.afterFirstDelta = true;
            out.push({ type: "toolcall_delta", index: b.index, id: b.id, delta: d.toolUse.input ?? "" });
          }
          return;
        }
        case "contentBlockStop": {
          const ev = data as ConverseEvents["contentBlockStop"];
          const b = open.get(ev.contentBlockIndex);
          open.delete(ev.contentBlockIndex);
          if (b) close(b, out);
          return;
        }
        case "messageStop":
          stop = STOP_REASONS[(data as ConverseEvents["messageStop"]).stopReason] ?? "end_turn";
          return;
        case "metadata":
          readConverseUsage(usage, (data as ConverseEvents["metadata"]).usage);
          if (stop !== undefined) end(out);
          return;
      }
    },
  };
  return self;
}

function readConverseUsage(usage: Usage, u: ConverseUsage | undefined): void {
  if (!u) return;
  if (typeof u.inputTokens === "number") usage.input_tokens = u.inputTokens;
  if (typeof u.outputTokens === "number") usage.output_tokens = u.outputTokens;
  if (typeof u.cacheReadInputTokens === "number") usage.cache_read_input_tokens = u.cacheReadInputTokens;
  if (typeof u.cacheWriteInputTokens === "number")
    usage.cache_creation_input_tokens = u.cacheWriteInputTokens;
}

function malformed(provider: string, index: unknown, afterFirstDelta: boolean): ProviderError {
  return new ProviderError({
    kind: "stream",
    provider,
    afterFirstDelta,
    message: `${provider}: malformed stream: a toolUse delta for block ${JSON.stringify(index)} arrived before that block's contentBlockStart`,
  });
}
