/**
 * The OpenAI Responses API provider (`openai-responses/<model>`, and `openai/<model>` for reasoning
 * models, see openai.ts): neutral request → `POST {base}/responses` (openai-responses-request.ts), and
 * the named SSE events → neutral stream events.
 *
 * The answer is a list of output items (reasoning, message, function_call), each opened by
 * `response.output_item.added` and closed by `response.output_item.done` with its final form; the
 * deltas between fill them in. A reasoning item's final form (with `encrypted_content`) becomes the
 * thinking block's signature, so it goes back on the next turn.
 */
import { randomUUID } from "node:crypto";
import { createJsonCache } from "./body-json.js";
import { ProviderError } from "./errors.js";
import { pushMessageEnd, toolUseBlock } from "./finish.js";
import { kindForStreamError, missingKeyError } from "./http.js";
import type {
  ResponsesError,
  ResponsesOutputItem,
  ResponsesResponse,
  ResponsesStreamEvent,
  ResponsesUsage,
} from "./openai-responses-events.js";
import { responsesRequestJson } from "./openai-responses-request.js";
import { parseData } from "./sse-reader.js";
import type { WireDecoder } from "./stream-call.js";
import type { ContentBlock, Provider, ProviderOptions, StopReason, StreamEvent, Usage } from "./types.js";
import { emptyUsage } from "./types.js";
import { createWireProvider, trimSlash, type WireContext, type WireProtocol } from "./wire-provider.js";

export { isOpenAIReasoningModel } from "./openai-responses-request.js";

const DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** Creates an OpenAI Responses API provider; key and base URL as `createOpenAIProvider` reads them. */
export function createOpenAIResponsesProvider(options: ProviderOptions = {}): Provider {
  return createWireProvider("openai-responses", options, openaiResponsesProtocol);
}

/** The Responses wire on OpenAI's API or a compatible server: `POST {base}/responses`, a bearer key. */
export function openaiResponsesProtocol({ name, env, options }: WireContext): WireProtocol {
  const cache = createJsonCache();
  // One key per provider instance, i.e. per session: its calls land on the same prompt cache.
  const promptCacheKey = `goat-${randomUUID()}`;
  return {
    prepare(request, key) {
      const apiKey = key ?? options.apiKey ?? env.OPENAI_API_KEY;
      const baseURL = trimSlash(options.baseURL ?? env.OPENAI_BASE_URL ?? DEFAULT_BASE_URL);
      if (!apiKey && baseURL.startsWith("https://api.openai.com/"))
        throw missingKeyError(name, "OPENAI_API_KEY", "OPENAI_BASE_URL");
      const headers: Record<string, string> = { accept: "text/event-stream" };
      if (apiKey) headers.authorization = `Bearer ${apiKey}`;
      Object.assign(headers, options.headers, request.headers);
      return {
        url: `${baseURL}/responses`,
        headers,
        body: responsesRequestJson(request, { promptCacheKey }, cache),
      };
    },
    decoder: (_request, model) => responsesDecoder(name, model),
  };
}

const INCOMPLETE: Record<string, StopReason> = {
  max_output_tokens: "max_tokens",
  content_filter: "refusal",
};

/** An output item being streamed, by its `output_index`. */
type OpenItem =
  | { kind: "text"; index: number; text: string }
  | { kind: "thinking"; index: number; thinking: string; part: number }
  | { kind: "tool"; index: number; id: string; itemId?: string; name: string; args: string };

/** The Responses SSE decoder for one call (exported for tests that feed it events directly). */
export function responsesDecoder(provider: string, model: string): WireDecoder {
  const content: ContentBlock[] = [];
  const open = new Map<number, OpenItem>();
  const usage: Usage = emptyUsage();
  let id: string | undefined;
  let started = false;
  let refused = false;

  const start = (out: StreamEvent[]): void => {
    if (started) return;
    started = true;
    out.push({ type: "message_start", id, model });
  };

  /** The text block of a message item, opened on its first part. */
  const textOf = (outputIndex: number, out: StreamEvent[]): OpenItem & { kind: "text" } => {
    const item = open.get(outputIndex);
    if (item?.kind === "text") return item;
    const text = { kind: "text" as const, index: content.length, text: "" };
    open.set(outputIndex, text);
    content.push({ type: "text", text: "" });
    out.push({ type: "text_start", index: text.index });
    return text;
  };

  const addItem = (outputIndex: number, item: ResponsesOutputItem | undefined, out: StreamEvent[]): void => {
    const index = content.length;
    if (item?.type === "reasoning") {
      open.set(outputIndex, { kind: "thinking", index, thinking: "", part: 0 });
      content.push({ type: "thinking", thinking: "" });
      out.push({ type: "thinking_start", index });
    } else if (item?.type === "function_call") {
      const tool = {
        kind: "tool" as const,
        index,
        id: item.call_id,
        itemId: item.id,
        name: item.name,
        args: "",
      };
      open.set(outputIndex, tool);
      content.push({ type: "tool_use", id: tool.id, name: tool.name, input: {} });
      out.push({ type: "toolcall_start", index, id: tool.id, name: tool.name });
    }
    // Message items open their text block on their first content part; other items are skipped.
  };

  const doneItem = (outputIndex: number, item: ResponsesOutputItem | undefined, out: StreamEvent[]): void => {
    const open_ = open.get(outputIndex);
    open.delete(outputIndex);
    if (!open_) return;
    if (open_.kind === "text") {
      content[open_.index] = { type: "text", text: open_.text };
      out.push({ type: "text_end", index: open_.index, text: open_.text });
    } else if (open_.kind === "thinking") {
      // The item as it must go back: its summary and encrypted reasoning, without the status.
      const reasoning = item?.type === "reasoning" ? item : undefined;
      const signature = JSON.stringify({
        type: "reasoning",
        id: item?.id,
        summary: Array.isArray(reasoning?.summary) ? reasoning.summary : [],
        encrypted_content: reasoning?.encrypted_content ?? undefined,
      });
      content[open_.index] = { type: "thinking", thinking: open_.thinking, signature };
      out.push({ type: "thinking_end", index: open_.index, thinking: open_.thinking, signature });
    } else {
      const args =
        item?.type === "function_call" && typeof item.arguments === "string" ? item.arguments : open_.args;
      const toolCall = toolUseBlock(open_.id, open_.name, args);
      if (open_.itemId) toolCall.signature = open_.itemId;
      content[open_.index] = toolCall;
      out.push({ type: "toolcall_end", index: open_.index, toolCall });
    }
  };

  const end = (response: ResponsesResponse | undefined, out: StreamEvent[]): void => {
    start(out);
    for (const [outputIndex] of [...open]) doneItem(outputIndex, undefined, out);
    readUsage(usage, response?.usage);
    const reason = response?.incomplete_details?.reason;
    const reported: StopReason = refused
      ? "refusal"
      : ((reason !== undefined ? INCOMPLETE[reason] : undefined) ?? "end_turn");
    pushMessageEnd(
      out,
      { content, id, model, usage },
      reported,
      typeof reason === "string" ? { stop_details: reason } : {},
    );
    self.ended = true;
  };

  const self: WireDecoder & { ended: boolean; afterFirstDelta: boolean } = {
    ended: false,
    afterFirstDelta: false,
    finish: () => false, // a body that ends before response.completed is incomplete
    onEvent(sse, out) {
      const ev = parseData(provider, sse.data, self.afterFirstDelta) as ResponsesStreamEvent;
      switch (ev.type) {
        case "response.created":
          id = ev.response?.id;
          start(out);
          return;
        case "response.output_item.added":
          start(out);
          addItem(ev.output_index, ev.item, out);
          return;
        case "response.output_text.delta":
        case "response.refusal.delta": {
          if (ev.type === "response.refusal.delta") refused = true;
          const text = textOf(ev.output_index, out);
          text.text += ev.delta;
          self.afterFirstDelta = true;
          out.push({ type: "text_delta", index: text.index, delta: ev.delta });
          return;
        }
        case "response.reasoning_summary_text.delta": {
          const item = open.get(ev.output_index);
          if (item?.kind !== "thinking") return;
          // Summary parts are paragraphs of one thought: joined with a blank line.
          const part = ev.summary_index ?? 0;
          const delta = part !== item.part && item.thinking !== "" ? `\n\n${ev.delta}` : ev.delta;
          item.part = part;
          item.thinking += delta;
          self.afterFirstDelta = true;
          out.push({ type: "thinking_delta", index: item.index, delta });
          return;
        }
        case "response.function_call_arguments.delta": {
          const item = open.get(ev.output_index);
          if (item?.kind !== "tool") return;
          item.args += ev.delta;
          self.afterFirstDelta = true;
          out.push({ type: "toolcall_delta", index: item.index, id: item.id, delta: ev.delta });
          return;
        }
        case "response.output_item.done":
          doneItem(ev.output_index, ev.item, out);
          return;
        case "response.completed":
        case "response.incomplete":
          end(ev.response, out);
          return;
        case "response.failed":
          throw failure(provider, ev.response?.error, self.afterFirstDelta);
        case "error":
          throw failure(provider, ev, self.afterFirstDelta);
      }
    },
  };
  return self;
}

function failure(
  provider: string,
  error: ResponsesError | null | undefined,
  afterFirstDelta: boolean,
): ProviderError {
  const message: string = error?.message ?? "the response failed";
  const type: string | undefined = typeof error?.code === "string" ? error.code : error?.type;
  return new ProviderError({
    kind: kindForStreamError(type, message),
    provider,
    afterFirstDelta,
    message: `${provider} stream error${type ? ` (${type})` : ""}: ${message}`,
  });
}

function readUsage(usage: Usage, u: ResponsesUsage | null | undefined): void {
  if (!u) return;
  const cached = u.input_tokens_details?.cached_tokens ?? 0;
  // OpenAI counts cached tokens inside input_tokens; ours counts them apart (see openai.ts).
  if (typeof u.input_tokens === "number") usage.input_tokens = Math.max(0, u.input_tokens - cached);
  if (typeof u.output_tokens === "number") usage.output_tokens = u.output_tokens;
  usage.cache_read_input_tokens = cached;
  const reasoning = u.output_tokens_details?.reasoning_tokens;
  if (typeof reasoning === "number") usage.reasoning_tokens = reasoning;
}
