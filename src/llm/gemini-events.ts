/**
 * Gemini's streamed `GenerateContentResponse` chunks (the Gemini API's and Vertex AI's alike), as far
 * as the decoder (gemini-decoder.ts) reads them. The JSON is not validated against these types (a
 * check per token would cost): they say what the API documents, and the decoder guards the rest.
 */

/** A function call, always whole in one part. `id` is sent by some models and not by others. */
export interface GeminiFunctionCall {
  id?: string;
  name?: string;
  args?: Record<string, unknown>;
}

/** One part of a candidate's content: a piece of text or of thought, or a function call. */
interface GeminiPart {
  text?: string;
  /** True when `text` is the model's thinking rather than its answer. */
  thought?: boolean;
  /** Opaque; it must go back with the part it came on. */
  thoughtSignature?: string;
  functionCall?: GeminiFunctionCall;
}

/** The running token counts; `promptTokenCount` includes the cached part. */
export interface GeminiUsage {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
}

/** An error sent in the stream (Google's `Status` shape). */
export interface GeminiError {
  code?: number;
  message?: string;
  status?: string;
}

/** One `data:` payload of the stream. */
export interface GeminiChunk {
  responseId?: string;
  candidates?: Array<{ content?: { parts?: GeminiPart[] }; finishReason?: string }>;
  usageMetadata?: GeminiUsage;
  promptFeedback?: { blockReason?: string; blockReasonMessage?: string };
  error?: GeminiError;
}
