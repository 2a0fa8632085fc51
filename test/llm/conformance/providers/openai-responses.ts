/** OpenAI Responses API (`openai-responses/…`, and `openai/…` for reasoning models on OpenAI's API). */
import { createOpenAIResponsesProvider } from "../../../../src/llm/openai-responses.js";
import type { ConformanceDescriptor } from "../descriptor.js";
import { bearer } from "./openai-chat.js";

export const openaiResponses: ConformanceDescriptor = {
  name: "openai-responses",
  providerName: "openai-responses",
  model: "gpt-5",
  format: "openai-responses",
  create: (origin, options) =>
    createOpenAIResponsesProvider({ baseURL: `${origin}/v1`, apiKey: "test-key", ...options }),
  credentialOf: bearer,
  sentToolResults: (body) => responseToolResults(body),
  sentImages: (body) => responseImages(body),
  sentThinking: (body) => responseReasoning(body),
  overloadStatus: 503,
};

export function responseToolResults(body: any): string[] {
  return (body?.input ?? []).filter((i: any) => i.type === "function_call_output").map((i: any) => i.call_id);
}

export function responseImages(body: any): string[] {
  return (body?.input ?? [])
    .flatMap((i: any) => (Array.isArray(i.content) ? i.content : []))
    .filter((p: any) => p.type === "input_image")
    .map((p: any) => String(p.image_url).replace(/^data:[^,]*,/, ""));
}

export function responseReasoning(body: any): string[] {
  return (body?.input ?? []).filter((i: any) => i.type === "reasoning").map((i: any) => i.encrypted_content);
}
