/**
 * Renders a scripted reply as the clouds that host Claude send it: Bedrock's
 * InvokeModelWithResponseStream (each Anthropic event base64-wrapped in a `chunk` event-stream frame,
 * in-stream errors as `exception` frames), Bedrock's ConverseStream (its own events, for non-Claude
 * models), and the two clouds' HTTP error bodies (Bedrock's `{message}` with `x-amzn-ErrorType`,
 * Google's `{error: {code, message, status}}` for Vertex's quota and auth errors).
 */
import { encodeEventStreamFrame } from "../llm/aws-event-stream.js";
import type { ErrorReply, MessageReply, MockBlock, MockStopReason } from "./mock-replies.js";
import { anthropicEvents, errorBody } from "./mock-wire.js";

/** An event frame; a string payload is sent as is (to script a malformed one), others as JSON. */
const eventFrame = (eventType: string, payload: unknown): Buffer =>
  encodeEventStreamFrame(
    { ":event-type": eventType, ":content-type": "application/json", ":message-type": "event" },
    typeof payload === "string" ? payload : JSON.stringify(payload),
  );

/** An in-stream exception frame, as Bedrock sends them (`throttlingException`, …). */
function exceptionFrame(exceptionType: string, message: string): Buffer {
  return encodeEventStreamFrame(
    { ":exception-type": exceptionType, ":content-type": "application/json", ":message-type": "exception" },
    JSON.stringify({ message }),
  );
}

/** The Anthropic stream error types as the Bedrock exceptions that carry them. */
const EXCEPTIONS: Record<string, string> = {
  overloaded_error: "serviceUnavailableException",
  rate_limit_error: "throttlingException",
  api_error: "internalServerException",
  invalid_request_error: "validationException",
};

/** A chunk frame holding one Anthropic event's JSON (or any text, for a malformed chunk). */
function bedrockChunkFrame(json: string): Buffer {
  return eventFrame("chunk", { bytes: Buffer.from(json, "utf8").toString("base64") });
}

/** Bedrock InvokeModelWithResponseStream frames of a reply, one buffer per frame. */
export function bedrockInvokeFrames(r: MessageReply, model: string): Buffer[] {
  const frames: Buffer[] = [];
  for (const event of anthropicEvents(r, model)) {
    const name = /^event: (.*)$/m.exec(event)?.[1];
    const data = /^data: (.*)$/m.exec(event)?.[1] ?? "{}";
    if (name === "ping") continue; // Bedrock does not forward pings
    if (name === "error") {
      const error = JSON.parse(data).error;
      frames.push(exceptionFrame(EXCEPTIONS[error.type] ?? "modelStreamErrorException", error.message));
      continue;
    }
    frames.push(bedrockChunkFrame(data));
  }
  if (r.malformedAfterEvents !== undefined)
    frames.splice(r.malformedAfterEvents, 0, bedrockChunkFrame("{broken"));
  return frames;
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function stopOf(r: MessageReply): MockStopReason {
  return r.stopReason ?? (r.content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn");
}

/** Bedrock ConverseStream frames of a reply (text blocks have no start event; tool calls do). */
export function converseFrames(r: MessageReply): Buffer[] {
  const size = r.chunkSize ?? 8;
  const u = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, ...r.usage };
  const frames: Buffer[] = [eventFrame("messageStart", { role: "assistant" })];
  r.content.forEach((b: MockBlock, contentBlockIndex) => {
    const delta = (d: object) =>
      frames.push(eventFrame("contentBlockDelta", { contentBlockIndex, delta: d }));
    if (b.type === "text") for (const p of pieces(b.text, size)) delta({ text: p });
    else if (b.type === "thinking") {
      for (const p of pieces(b.thinking, size)) delta({ reasoningContent: { text: p } });
      if (b.signature) delta({ reasoningContent: { signature: b.signature } });
    } else if (b.type === "tool_use") {
      const toolUseId = b.id ?? `tooluse_mock${String(contentBlockIndex).padStart(2, "0")}`;
      frames.push(
        eventFrame("contentBlockStart", {
          contentBlockIndex,
          start: { toolUse: { toolUseId, name: b.name } },
        }),
      );
      for (const p of pieces(b.rawArguments ?? JSON.stringify(b.input ?? {}), size))
        delta({ toolUse: { input: p } });
    } else return;
    frames.push(eventFrame("contentBlockStop", { contentBlockIndex }));
  });
  if (r.streamError) {
    const at = r.streamError.afterEvents ?? frames.length;
    frames.splice(
      at,
      frames.length - at,
      exceptionFrame(EXCEPTIONS[r.streamError.type] ?? "modelStreamErrorException", r.streamError.message),
    );
    return frames;
  }
  frames.push(eventFrame("messageStop", { stopReason: stopOf(r) }));
  frames.push(
    eventFrame("metadata", {
      usage: {
        inputTokens: u.input,
        outputTokens: u.output,
        totalTokens: u.input + u.output,
        cacheReadInputTokens: u.cacheRead,
        cacheWriteInputTokens: u.cacheWrite,
      },
      metrics: { latencyMs: 42 },
    }),
  );
  if (r.malformedAfterEvents !== undefined)
    frames.splice(r.malformedAfterEvents, 0, eventFrame("contentBlockDelta", "{broken"));
  return frames;
}

const BEDROCK_ERRORS: Record<number, string> = {
  400: "ValidationException",
  401: "UnrecognizedClientException",
  403: "AccessDeniedException",
  404: "ResourceNotFoundException",
  408: "ModelTimeoutException",
  424: "ModelErrorException",
  429: "ThrottlingException",
  500: "InternalServerException",
  503: "ServiceUnavailableException",
};

/** Bedrock's HTTP error: `{message}` and the exception's name in `x-amzn-ErrorType`. */
export function bedrockError(e: ErrorReply): { headers: Record<string, string>; body: string } {
  const type =
    e.type ??
    BEDROCK_ERRORS[e.status] ??
    (e.status >= 500 ? "InternalServerException" : "ValidationException");
  const overflow = JSON.stringify(e.anthropicBody ?? "").includes("prompt is too long");
  const message = overflow
    ? "Input is too long for requested model."
    : (e.message ?? (e.status === 429 ? "Too many requests, please wait before trying again." : `${type}`));
  const body =
    e.body !== undefined
      ? typeof e.body === "string"
        ? e.body
        : JSON.stringify(e.body)
      : JSON.stringify({ message });
  return {
    headers: { "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` },
    body,
  };
}

const GOOGLE_STATUS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
};

/**
 * Vertex's HTTP error: Google's shape for what Vertex itself refuses (auth, quota, unknown model),
 * Anthropic's for what the model refuses (overloaded, a prompt too long), as Vertex passes those on.
 */
export function vertexError(e: ErrorReply): string {
  const status = GOOGLE_STATUS[e.status];
  if (!status || e.anthropicBody || e.body !== undefined) return errorBody("anthropic", e);
  const message =
    e.message ??
    (e.status === 429
      ? "Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model with base model: anthropic-claude. Please submit a quota increase request."
      : `Request failed: ${status}`);
  return JSON.stringify({ error: { code: e.status, message, status } });
}
