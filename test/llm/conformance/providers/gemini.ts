/** Gemini API (`gemini/…`). */
import { createGeminiProvider } from "../../../../src/llm/gemini.js";
import type { ConformanceDescriptor } from "../descriptor.js";

export const gemini: ConformanceDescriptor = {
  name: "gemini",
  providerName: "gemini",
  model: "gemini-2.5-pro",
  format: "gemini",
  create: (origin, options) => createGeminiProvider({ baseURL: origin, apiKey: "test-key", ...options }),
  credentialOf: (request) => request.headers["x-goog-api-key"] as string | undefined,
  sentToolResults: (body) =>
    geminiParts(body)
      .filter((p) => p.functionResponse)
      .map((p) => p.functionResponse.id),
  sentImages: (body) =>
    geminiParts(body)
      .filter((p) => p.inlineData)
      .map((p) => p.inlineData.data),
  sentThinking: (body) =>
    geminiParts(body)
      .filter((p) => p.thoughtSignature)
      .map((p) => p.thoughtSignature),
  overloadStatus: 503,
};

/** Every part of every content of a Gemini request body. */
export function geminiParts(body: any): any[] {
  return (body?.contents ?? []).flatMap((c: any) => c.parts ?? []);
}
