/**
 * Renders a scripted reply in the two wire formats, event for event as the real APIs send them:
 * Anthropic Messages SSE (message_start, ping, content blocks, message_delta, message_stop) and OpenAI
 * Chat Completions chunks (role chunk, deltas, finish chunk, usage chunk, `[DONE]`), plus the
 * non-streaming JSON bodies and each provider's error bodies.
 */
import type { ErrorReply, MessageReply, MockFormat, MockStopReason } from "./mock-replies.js";
import { geminiErrorBody } from "./mock-wire-gemini.js";
import { argumentsOf, pieces, stopOf, toolId, usageOf } from "./reply-parts.js";

export { argumentsOf, pieces, stopOf, toolId, usageOf } from "./reply-parts.js";

const sse = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const chunk = (data: unknown): string => `data: ${JSON.stringify(data)}\n\n`;

/** The Anthropic SSE events of a reply, one string per event. */
export function anthropicEvents(r: MessageReply, model: string): string[] {
  const u = usageOf(r);
  const size = r.chunkSize ?? 8;
  const out: string[] = [];
  out.push(
    sse("message_start", {
      type: "message_start",
      message: {
        id: r.id ?? "msg_mock01",
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: u.input,
          cache_creation_input_tokens: u.cacheWrite,
          cache_read_input_tokens: u.cacheRead,
          output_tokens: 1,
        },
      },
    }),
  );
  out.push(sse("ping", { type: "ping" }));
  r.content.forEach((b, index) => {
    const delta = (d: object) =>
      out.push(sse("content_block_delta", { type: "content_block_delta", index, delta: d }));
    if (b.type === "text") {
      out.push(
        sse("content_block_start", {
          type: "content_block_start",
          index,
          content_block: { type: "text", text: "" },
        }),
      );
      for (const p of pieces(b.text, size)) delta({ type: "text_delta", text: p });
    } else if (b.type === "thinking") {
      out.push(
        sse("content_block_start", {
          type: "content_block_start",
          index,
          content_block: { type: "thinking", thinking: "", signature: "" },
        }),
      );
      for (const p of pieces(b.thinking, size)) delta({ type: "thinking_delta", thinking: p });
      if (b.signature) delta({ type: "signature_delta", signature: b.signature });
    } else if (b.type === "redacted_thinking") {
      out.push(
        sse("content_block_start", {
          type: "content_block_start",
          index,
          content_block: { type: "redacted_thinking", data: b.data },
        }),
      );
    } else {
      out.push(
        sse("content_block_start", {
          type: "content_block_start",
          index,
          content_block: { type: "tool_use", id: toolId(b, index, "toolu_mock"), name: b.name, input: {} },
        }),
      );
      for (const p of pieces(argumentsOf(b), size)) delta({ type: "input_json_delta", partial_json: p });
    }
    out.push(sse("content_block_stop", { type: "content_block_stop", index }));
  });
  if (r.streamError) {
    const at = r.streamError.afterEvents ?? out.length;
    out.splice(at, out.length - at, errorEvent("anthropic", r.streamError.type, r.streamError.message));
    return out;
  }
  out.push(
    sse("message_delta", {
      type: "message_delta",
      delta: { stop_reason: stopOf(r), stop_sequence: r.stopSequence ?? null },
      usage: { output_tokens: u.output },
    }),
  );
  out.push(sse("message_stop", { type: "message_stop" }));
  return out;
}

const FINISH: Record<MockStopReason, string> = {
  end_turn: "stop",
  stop_sequence: "stop",
  tool_use: "tool_calls",
  max_tokens: "length",
  refusal: "content_filter",
};

/** The OpenAI SSE chunks of a reply, one string per chunk. */
export function openaiEvents(r: MessageReply, model: string, includeUsage: boolean): string[] {
  const u = usageOf(r);
  const size = r.chunkSize ?? 8;
  const id = r.id ?? "chatcmpl-mock01";
  const base = { id, object: "chat.completion.chunk", created: 1_700_000_000, model };
  const delta = (d: object, finish: string | null = null) =>
    chunk({ ...base, choices: [{ index: 0, delta: d, finish_reason: finish }] });
  const out: string[] = [delta({ role: "assistant", content: "" })];
  let toolIndex = 0;
  r.content.forEach((b, i) => {
    if (b.type === "text") for (const p of pieces(b.text, size)) out.push(delta({ content: p }));
    else if (b.type === "thinking") {
      for (const p of pieces(b.thinking, size)) out.push(delta({ reasoning_content: p }));
      // LiteLLM serving an Anthropic model adds the signature as a thinking block.
      if (r.litellmThinkingBlocks && b.signature)
        out.push(delta({ thinking_blocks: [{ type: "thinking", thinking: "", signature: b.signature }] }));
    } else if (b.type === "tool_use") {
      const index = toolIndex++;
      const callId = toolId(b, i, "call_mock");
      out.push(
        delta({
          tool_calls: [{ index, id: callId, type: "function", function: { name: b.name, arguments: "" } }],
        }),
      );
      for (const p of pieces(argumentsOf(b), size)) {
        const call =
          r.toolCallIds === "every"
            ? { index, id: callId, function: { arguments: p } }
            : { index, function: { arguments: p } };
        out.push(delta({ tool_calls: [call] }));
      }
    }
  });
  if (r.streamError) {
    const at = r.streamError.afterEvents ?? out.length;
    out.splice(at, out.length - at, errorEvent("openai", r.streamError.type, r.streamError.message));
    return out;
  }
  const finish = r.openaiFinishReason === undefined ? FINISH[stopOf(r)] : r.openaiFinishReason;
  out.push(delta({}, finish));
  if (includeUsage) {
    out.push(
      chunk({
        ...base,
        choices: [],
        usage: {
          prompt_tokens: u.input + u.cacheRead,
          completion_tokens: u.output,
          total_tokens: u.input + u.cacheRead + u.output,
          prompt_tokens_details: { cached_tokens: u.cacheRead },
        },
      }),
    );
  }
  if (!r.omitDone) out.push("data: [DONE]\n\n");
  return out;
}

function errorEvent(format: "anthropic" | "openai", type: string, message: string): string {
  return format === "anthropic"
    ? sse("error", { type: "error", error: { type, message } })
    : chunk({ error: { message, type, code: type } });
}

/** The non-streaming JSON answer of a reply. */
export function jsonBody(format: "anthropic" | "openai", r: MessageReply, model: string): object {
  const u = usageOf(r);
  if (format === "anthropic") {
    return {
      id: r.id ?? "msg_mock01",
      type: "message",
      role: "assistant",
      model,
      content: r.content.map((b, i) =>
        b.type === "tool_use"
          ? { type: "tool_use", id: toolId(b, i, "toolu_mock"), name: b.name, input: b.input ?? {} }
          : b,
      ),
      stop_reason: stopOf(r),
      stop_sequence: r.stopSequence ?? null,
      usage: {
        input_tokens: u.input,
        output_tokens: u.output,
        cache_read_input_tokens: u.cacheRead,
        cache_creation_input_tokens: u.cacheWrite,
      },
    };
  }
  const text = r.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
  const reasoning = r.content.flatMap((b) => (b.type === "thinking" ? [b.thinking] : [])).join("");
  const calls = r.content.flatMap((b, i) =>
    b.type === "tool_use"
      ? [
          {
            id: toolId(b, i, "call_mock"),
            type: "function",
            function: { name: b.name, arguments: argumentsOf(b) },
          },
        ]
      : [],
  );
  return {
    id: r.id ?? "chatcmpl-mock01",
    object: "chat.completion",
    created: 1_700_000_000,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: text === "" ? null : text,
          ...(reasoning ? { reasoning_content: reasoning } : {}),
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        },
        finish_reason: r.openaiFinishReason === undefined ? FINISH[stopOf(r)] : r.openaiFinishReason,
      },
    ],
    usage: {
      prompt_tokens: u.input + u.cacheRead,
      completion_tokens: u.output,
      total_tokens: u.input + u.cacheRead + u.output,
      prompt_tokens_details: { cached_tokens: u.cacheRead },
    },
  };
}

const ANTHROPIC_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

const OPENAI_CODES: Record<number, [string, string | null]> = {
  400: ["invalid_request_error", null],
  401: ["invalid_request_error", "invalid_api_key"],
  403: ["invalid_request_error", "unsupported_country_region_territory"],
  404: ["invalid_request_error", "model_not_found"],
  429: ["requests", "rate_limit_exceeded"],
  500: ["server_error", null],
  503: ["server_error", null],
};

const DEFAULT_MESSAGES: Record<number, string> = {
  400: "Invalid request",
  401: "invalid x-api-key",
  403: "Your API key does not have permission to use the specified resource.",
  404: "model: no-such-model",
  429: "Number of request tokens has exceeded your per-minute rate limit",
  500: "Internal server error",
  529: "Overloaded",
};

/** The error body a provider sends for a status (its real shape and wording). */
export function errorBody(format: MockFormat, e: ErrorReply): string {
  if (e.body !== undefined) return typeof e.body === "string" ? e.body : JSON.stringify(e.body);
  const own = format === "anthropic" ? e.anthropicBody : format === "gemini" ? e.geminiBody : e.openaiBody;
  if (own) return JSON.stringify(own);
  const message = e.message ?? DEFAULT_MESSAGES[e.status] ?? `HTTP ${e.status}`;
  if (format === "gemini") return geminiErrorBody(e, message);
  if (format === "anthropic") {
    const type =
      e.type ?? ANTHROPIC_TYPES[e.status] ?? (e.status >= 500 ? "api_error" : "invalid_request_error");
    return JSON.stringify({ type: "error", error: { type, message } });
  }
  const [type, code] = OPENAI_CODES[e.status] ?? [
    e.status >= 500 ? "server_error" : "invalid_request_error",
    null,
  ];
  return JSON.stringify({ error: { message, type: e.type ?? type, param: null, code: e.code ?? code } });
}
