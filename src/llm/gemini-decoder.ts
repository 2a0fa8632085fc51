/**
 * Gemini's streamed answer → neutral stream events, the same for the Gemini API and Gemini on Vertex
 * AI: each SSE `data:` line is a whole `GenerateContentResponse` whose candidate carries the next
 * parts (text pieces, thought pieces marked `thought: true`, whole function calls), the last one a
 * `finishReason`, and `usageMetadata` the running token counts.
 *
 * A safety block or a recitation stop is a `refusal` with Gemini's reason in `stop_details`; a prompt
 * blocked before any answer (`promptFeedback.blockReason`) is an `invalid_request` error naming it.
 */
import { ProviderError } from "./errors.js";
import { pushMessageEnd, toolUseBlock } from "./finish.js";
import type { GeminiChunk, GeminiError, GeminiFunctionCall, GeminiUsage } from "./gemini-events.js";
import { GEMINI_SYNTHETIC_ID } from "./gemini-request.js";
import { parseData } from "./sse-reader.js";
import type { WireDecoder } from "./stream-call.js";
import type { ContentBlock, StopReason, StreamEvent, Usage } from "./types.js";
import { emptyUsage } from "./types.js";

const FINISH: Record<string, StopReason> = {
  STOP: "end_turn",
  MAX_TOKENS: "max_tokens",
  SAFETY: "refusal",
  RECITATION: "refusal",
  BLOCKLIST: "refusal",
  PROHIBITED_CONTENT: "refusal",
  SPII: "refusal",
  IMAGE_SAFETY: "refusal",
  LANGUAGE: "refusal",
};

/** The Gemini SSE decoder for one call; `provider` names it in errors, `model` is `provider/model`. */
export function geminiDecoder(provider: string, model: string): WireDecoder {
  const content: ContentBlock[] = [];
  const usage: Usage = emptyUsage();
  let prose: { kind: "text" | "thinking"; index: number; text: string; signature?: string } | undefined;
  let id: string | undefined;
  let started = false;
  let finishReason: string | undefined;
  let calls = 0;

  const closeProse = (out: StreamEvent[]): void => {
    if (!prose) return;
    const { index, text, signature } = prose;
    if (prose.kind === "text") {
      content[index] = signature ? { type: "text", text, signature } : { type: "text", text };
      out.push({ type: "text_end", index, text });
    } else {
      content[index] = signature
        ? { type: "thinking", thinking: text, signature }
        : { type: "thinking", thinking: text };
      out.push({ type: "thinking_end", index, thinking: text, signature });
    }
    prose = undefined;
  };

  const onProse = (
    kind: "text" | "thinking",
    text: string,
    signature: string | undefined,
    out: StreamEvent[],
  ): void => {
    if (text === "" && !signature) return; // the closing chunk's empty part
    if (prose?.kind !== kind) {
      // A signature alone (an empty part) belongs to the block before it.
      if (text === "" && signature && prose) {
        prose.signature = signature;
        return;
      }
      closeProse(out);
      if (text === "" && signature) {
        attachToLast(signature);
        return;
      }
      const index = content.length;
      prose = { kind, index, text: "" };
      content.push(kind === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "" });
      out.push({ type: kind === "text" ? "text_start" : "thinking_start", index });
    }
    if (signature) prose.signature = signature;
    if (text === "") return;
    prose.text += text;
    self.afterFirstDelta = true;
    out.push(
      kind === "text"
        ? { type: "text_delta", index: prose.index, delta: text }
        : { type: "thinking_delta", index: prose.index, delta: text },
    );
  };

  const attachToLast = (signature: string): void => {
    const last = content[content.length - 1];
    if (last && (last.type === "text" || last.type === "thinking" || last.type === "tool_use"))
      last.signature = signature;
  };

  const onCall = (call: GeminiFunctionCall, signature: string | undefined, out: StreamEvent[]): void => {
    closeProse(out);
    const index = content.length;
    const callId =
      typeof call.id === "string" && call.id !== "" ? call.id : `${GEMINI_SYNTHETIC_ID}${id ?? "x"}_${calls}`;
    calls++;
    const name = String(call.name ?? "");
    const args = JSON.stringify(call.args ?? {});
    content.push({ type: "tool_use", id: callId, name, input: {} });
    out.push({ type: "toolcall_start", index, id: callId, name });
    self.afterFirstDelta = true;
    out.push({ type: "toolcall_delta", index, id: callId, delta: args });
    const toolCall = toolUseBlock(callId, name, args);
    if (signature) toolCall.signature = signature;
    content[index] = toolCall;
    out.push({ type: "toolcall_end", index, toolCall });
  };

  const end = (out: StreamEvent[]): void => {
    closeProse(out);
    // Other reasons (MALFORMED_FUNCTION_CALL, OTHER…) end the turn, named in stop_details.
    const said = finishReason && finishReason !== "STOP" && finishReason !== "MAX_TOKENS";
    pushMessageEnd(
      out,
      { content, id, model, usage },
      FINISH[finishReason ?? "STOP"] ?? "end_turn",
      said ? { stop_details: finishReason } : {},
    );
    self.ended = true;
  };

  const self: WireDecoder & { ended: boolean; afterFirstDelta: boolean } = {
    ended: false,
    afterFirstDelta: false,
    // Gemini has no end marker: the body ends after the chunk with the finishReason.
    finish(out) {
      if (finishReason === undefined) return false;
      end(out);
      return true;
    },
    onEvent(sse, out) {
      const chunk = parseData(provider, sse.data, self.afterFirstDelta) as GeminiChunk;
      if (chunk.error) throw streamedError(provider, chunk.error, self.afterFirstDelta);
      if (!started) {
        started = true;
        id = chunk.responseId;
        out.push({ type: "message_start", id, model });
      }
      if (chunk.usageMetadata) readUsage(usage, chunk.usageMetadata);
      const candidate = chunk.candidates?.[0];
      if (!candidate) {
        const blocked = chunk.promptFeedback?.blockReason;
        if (blocked) throw blockedPrompt(provider, blocked, chunk.promptFeedback?.blockReasonMessage);
        return;
      }
      for (const part of candidate.content?.parts ?? []) {
        const signature = typeof part.thoughtSignature === "string" ? part.thoughtSignature : undefined;
        if (part.functionCall) onCall(part.functionCall, signature, out);
        else if (typeof part.text === "string")
          onProse(part.thought === true ? "thinking" : "text", part.text, signature, out);
        else if (signature) onProse("text", "", signature, out);
      }
      if (candidate.finishReason && candidate.finishReason !== "FINISH_REASON_UNSPECIFIED")
        finishReason = candidate.finishReason;
    },
  };
  return self;
}

/**
 * Gemini's counts → ours: `promptTokenCount` includes the cached part, which we count apart; the
 * thoughts are billed as output, so output is candidates + thoughts.
 */
function readUsage(usage: Usage, u: GeminiUsage): void {
  const cached = u.cachedContentTokenCount ?? 0;
  if (typeof u.promptTokenCount === "number") usage.input_tokens = Math.max(0, u.promptTokenCount - cached);
  const thoughts = typeof u.thoughtsTokenCount === "number" ? u.thoughtsTokenCount : 0;
  usage.output_tokens = (u.candidatesTokenCount ?? 0) + thoughts;
  usage.cache_read_input_tokens = cached;
  if (thoughts > 0) usage.reasoning_tokens = thoughts;
}

function blockedPrompt(provider: string, reason: string, detail: unknown): ProviderError {
  return new ProviderError({
    kind: "invalid_request",
    provider,
    message: `${provider}: the prompt was blocked (${reason})${typeof detail === "string" ? `: ${detail}` : ""}; rephrase it or change the safety settings`,
  });
}

function streamedError(provider: string, error: GeminiError, afterFirstDelta: boolean): ProviderError {
  const status: string | undefined = error?.status;
  const kind =
    status === "RESOURCE_EXHAUSTED"
      ? "rate_limit"
      : status === "UNAVAILABLE"
        ? "overloaded"
        : status === "INTERNAL"
          ? "server"
          : "stream";
  return new ProviderError({
    kind,
    provider,
    afterFirstDelta,
    message: `${provider} stream error${status ? ` (${status})` : ""}: ${error?.message ?? "unknown error"}`,
  });
}
