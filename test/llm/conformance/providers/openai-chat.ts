/** OpenAI Chat Completions (`openai/…` for non-reasoning models, and every gateway). */
import { createOpenAIProvider } from "../../../../src/llm/openai.js";
import type { MockRequest } from "../../../../src/testing/mock-replies.js";
import type { ConformanceDescriptor } from "../descriptor.js";

export const openaiChat: ConformanceDescriptor = {
  name: "openai-chat",
  providerName: "openai",
  model: "gpt-4.1",
  format: "openai",
  create: (origin, options) =>
    createOpenAIProvider({ baseURL: `${origin}/v1`, apiKey: "test-key", ...options }),
  credentialOf: bearer,
  sentToolResults: (body) =>
    (body?.messages ?? []).filter((m: any) => m.role === "tool").map((m: any) => m.tool_call_id),
  sentImages: (body) => chatImages(body),
  overloadStatus: 503,
};

/** The bearer token of a request. */
export function bearer(request: MockRequest): string | undefined {
  const value = request.headers.authorization;
  return typeof value === "string" ? value.replace(/^Bearer /, "") : undefined;
}

/** The base64 data of Chat Completions image parts. */
export function chatImages(body: any): string[] {
  return (body?.messages ?? [])
    .flatMap((m: any) => (Array.isArray(m.content) ? m.content : []))
    .filter((p: any) => p.type === "image_url")
    .map((p: any) => String(p.image_url.url).replace(/^data:[^,]*,/, ""));
}
