/**
 * Azure OpenAI (`azure/<deployment>`) over Chat Completions and over Responses, and Azure AI Foundry's
 * Model Inference API (`azure-foundry/<model>`, Chat Completions at `/models/chat/completions`).
 */
import { createAzureOpenAIProvider } from "../../../../src/llm/azure.js";
import type { ConformanceDescriptor } from "../descriptor.js";
import { chatImages } from "./openai-chat.js";
import { responseImages, responseReasoning, responseToolResults } from "./openai-responses.js";

const apiKey = (request: { headers: Record<string, unknown> }) =>
  request.headers["api-key"] as string | undefined;

export const azureChat: ConformanceDescriptor = {
  name: "azure-chat",
  providerName: "azure",
  model: "my-gpt-4o-deployment",
  format: "openai",
  create: (origin, options) => createAzureOpenAIProvider({ baseURL: origin, apiKey: "test-key", ...options }),
  credentialOf: apiKey,
  sentToolResults: (body) =>
    (body?.messages ?? []).filter((m: any) => m.role === "tool").map((m: any) => m.tool_call_id),
  sentImages: chatImages,
  overloadStatus: 503,
};

export const azureResponses: ConformanceDescriptor = {
  name: "azure-responses",
  providerName: "azure-responses",
  model: "my-gpt-5-deployment",
  format: "openai-responses",
  create: (origin, options) =>
    createAzureOpenAIProvider({ baseURL: origin, apiKey: "test-key", wire: "responses", ...options }),
  credentialOf: apiKey,
  sentToolResults: responseToolResults,
  sentImages: responseImages,
  sentThinking: responseReasoning,
  overloadStatus: 503,
};

export const azureFoundry: ConformanceDescriptor = {
  name: "azure-foundry",
  providerName: "azure-foundry",
  model: "Meta-Llama-3.1-405B-Instruct",
  format: "openai",
  create: (origin, options) =>
    createAzureOpenAIProvider({ baseURL: origin, apiKey: "test-key", wire: "foundry", ...options }),
  credentialOf: apiKey,
  sentToolResults: (body) =>
    (body?.messages ?? []).filter((m: any) => m.role === "tool").map((m: any) => m.tool_call_id),
  sentImages: chatImages,
  overloadStatus: 503,
};
