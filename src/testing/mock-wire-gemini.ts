/**
 * Renders a scripted reply as Gemini's `streamGenerateContent?alt=sse` streams it: each event a whole
 * `GenerateContentResponse` with the next parts (text and thought pieces, whole function calls with
 * their thought signature), the last with the `finishReason` and the full `usageMetadata`. Checked
 * against the official `@google/genai` client (test/llm/official/).
 */
import type { ErrorReply, MessageReply, MockStopReason } from "./mock-replies.js";
import { pieces, stopOf, usageOf } from "./reply-parts.js";

const FINISH: Record<MockStopReason, string> = {
  end_turn: "STOP",
  stop_sequence: "STOP",
  tool_use: "STOP",
  max_tokens: "MAX_TOKENS",
  refusal: "SAFETY",
};

const chunk = (data: unknown): string => `data: ${JSON.stringify(data)}\r\n\r\n`;

/** The Gemini SSE events of a reply, one string per event. */
export function geminiEvents(r: MessageReply, model: string): string[] {
  const u = usageOf(r);
  const size = r.chunkSize ?? 8;
  const responseId = r.id ?? "gemini-mock01";
  const prompt = { promptTokenCount: u.input + u.cacheRead };
  const event = (parts: object[], extra: Record<string, unknown> = {}) =>
    chunk({
      candidates: [{ content: { role: "model", parts }, index: 0, ...extra }],
      usageMetadata: prompt,
      modelVersion: model,
      responseId,
    });
  const out: string[] = [];
  for (const b of r.content) {
    if (b.type === "thinking") {
      const all = pieces(b.thinking, size);
      all.forEach((p, i) => {
        // The signature rides on the thought's last piece.
        const signed = i === all.length - 1 && b.signature ? { thoughtSignature: b.signature } : {};
        out.push(event([{ text: p, thought: true, ...signed }]));
      });
    } else if (b.type === "text") {
      for (const p of pieces(b.text, size)) out.push(event([{ text: p }]));
      if (b.signature) out.push(event([{ text: "", thoughtSignature: b.signature }]));
    } else if (b.type === "tool_use") {
      const call: Record<string, unknown> = { name: b.name, args: b.input ?? {} };
      if (b.id) call.id = b.id;
      out.push(event([{ functionCall: call, ...(b.signature ? { thoughtSignature: b.signature } : {}) }]));
    }
  }
  if (r.streamError) {
    const at = r.streamError.afterEvents ?? out.length;
    out.splice(
      at,
      out.length - at,
      chunk({
        error: { code: 503, message: r.streamError.message, status: statusOfType(r.streamError.type) },
      }),
    );
    return out;
  }
  out.push(
    chunk({
      candidates: [
        {
          content: { role: "model", parts: [{ text: "" }] },
          finishReason: r.geminiFinishReason ?? FINISH[stopOf(r)],
          index: 0,
        },
      ],
      usageMetadata: {
        promptTokenCount: u.input + u.cacheRead,
        candidatesTokenCount: u.output - (u.reasoning ?? 0),
        totalTokenCount: u.input + u.cacheRead + u.output,
        ...(u.cacheRead ? { cachedContentTokenCount: u.cacheRead } : {}),
        ...(u.reasoning ? { thoughtsTokenCount: u.reasoning } : {}),
      },
      modelVersion: model,
      responseId,
    }),
  );
  return out;
}

function statusOfType(type: string): string {
  if (/overload|unavailable/i.test(type)) return "UNAVAILABLE";
  if (/rate|exhausted/i.test(type)) return "RESOURCE_EXHAUSTED";
  return "INTERNAL";
}

const STATUS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
  529: "UNAVAILABLE",
};

/** Google's error body for a status: `{error: {code, message, status}}`. */
export function geminiErrorBody(e: ErrorReply, message: string): string {
  return JSON.stringify({
    error: {
      code: e.status,
      message,
      status: e.type ?? STATUS[e.status] ?? (e.status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION"),
    },
  });
}
