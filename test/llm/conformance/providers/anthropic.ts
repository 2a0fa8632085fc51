/** Anthropic Messages API (`anthropic/…`). */
import { createAnthropicProvider } from "../../../../src/llm/anthropic.js";
import type { ConformanceDescriptor } from "../descriptor.js";

export const anthropic: ConformanceDescriptor = {
  name: "anthropic",
  providerName: "anthropic",
  model: "claude-sonnet-4-5",
  format: "anthropic",
  create: (origin, options) => createAnthropicProvider({ baseURL: origin, apiKey: "test-key", ...options }),
  credentialOf: (request) => request.headers["x-api-key"] as string | undefined,
  sentToolResults: (body) => blocks(body, "tool_result").map((b) => b.tool_use_id),
  sentImages: (body) => blocks(body, "image").map((b) => b.source?.data),
  sentThinking: (body) => blocks(body, "thinking").map((b) => b.signature),
  overloadStatus: 529,
};

function blocks(body: any, type: string): any[] {
  return (body?.messages ?? [])
    .flatMap((m: any) => (Array.isArray(m.content) ? m.content : []))
    .filter((b: any) => b.type === type);
}
