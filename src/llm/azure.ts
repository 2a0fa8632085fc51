/**
 * Azure OpenAI and Azure AI Foundry (`azure/<deployment>`): OpenAI's two wires at an Azure resource.
 *
 * - Chat Completions: `POST {endpoint}/openai/deployments/{deployment}/chat/completions?api-version=…`
 * - Responses: `POST {endpoint}/openai/v1/responses` with the deployment as `model` (the v1 API takes
 *   no api-version).
 *
 * Which wire: as on OpenAI (openai.ts), a deployment named after a reasoning model (`o4-mini`,
 * `gpt-5-…`) uses Responses and the rest Chat Completions; `azure-responses/<deployment>` and
 * `GOAT_OPENAI_WIRE=chat|responses` choose explicitly.
 *
 * Azure AI Foundry's other vendors' models (Llama, Mistral, DeepSeek, Phi, Grok, …) speak the Azure AI
 * Model Inference API: `azure-foundry/<model>` sends Chat Completions to
 * `POST {endpoint}/models/chat/completions?api-version=…` with the model (deployment) name in the body,
 * and reads the stream with the OpenAI Chat decoder. The body is the gateway form (`max_tokens`), with
 * `extra-parameters: drop` so a model that does not know an optional field (`stream_options`,
 * `reasoning_effort`) drops it instead of failing the call with 422. Endpoint `AZURE_AI_ENDPOINT`
 * (`https://<resource>.services.ai.azure.com`, with or without `/models`), key `AZURE_AI_API_KEY`,
 * api-version `AZURE_AI_API_VERSION` (default 2024-05-01-preview); each falls back to its
 * `AZURE_OPENAI_*` counterpart, since one Foundry resource serves both APIs.
 *
 * Credentials: a key (`apiKey`, `AZURE_OPENAI_API_KEY`) goes in the `api-key` header. An Entra ID
 * token goes as a bearer: answer it from `getApiKey` (a JWT, or `Bearer <token>`), e.g. from
 * `@azure/identity`'s `getBearerTokenProvider`; on a 401 getApiKey is asked again (wire-provider.ts).
 */
import { randomUUID } from "node:crypto";
import { createJsonCache } from "./body-json.js";
import { ProviderError } from "./errors.js";
import { openaiDecoder } from "./openai.js";
import { openaiRequestJson } from "./openai-request.js";
import { responsesDecoder } from "./openai-responses.js";
import { isOpenAIReasoningModel, responsesRequestJson } from "./openai-responses-request.js";
import type { ModelRequest, Provider, ProviderOptions } from "./types.js";
import { createWireProvider, trimSlash, type WireContext, type WireProtocol } from "./wire-provider.js";

/** The api-version of Chat Completions calls when `OPENAI_API_VERSION` does not say (latest GA). */
const AZURE_DEFAULT_API_VERSION = "2024-10-21";

/** The api-version of the Azure AI Model Inference API when `AZURE_AI_API_VERSION` does not say. */
const AZURE_MODELS_DEFAULT_API_VERSION = "2024-05-01-preview";

/**
 * Which wire an Azure provider speaks: an OpenAI wire by deployment name (`auto`) or always one, or
 * the Azure AI Model Inference API for Foundry's other models (`foundry`).
 */
export type AzureWire = "auto" | "chat" | "responses" | "foundry";

/** Creates an Azure OpenAI provider; endpoint, key and api-version are read before each call. */
export function createAzureOpenAIProvider(options: ProviderOptions & { wire?: AzureWire } = {}): Provider {
  const { wire = "auto", ...rest } = options;
  const name = wire === "responses" ? "azure-responses" : wire === "foundry" ? "azure-foundry" : "azure";
  return createWireProvider(name, rest, (context) =>
    wire === "foundry" ? foundryProtocol(context) : azureProtocol(context, wire),
  );
}

/** The Azure wire protocol (both OpenAI wires, see the module comment). */
function azureProtocol({ name, env, options }: WireContext, wire: AzureWire): WireProtocol {
  const cache = createJsonCache();
  const promptCacheKey = `goat-${randomUUID()}`;
  const responsesFor = (request: ModelRequest): boolean => {
    const forced = wire === "auto" ? env.GOAT_OPENAI_WIRE : wire;
    if (forced === "responses" || forced === "chat") return forced === "responses";
    return isOpenAIReasoningModel(request.model);
  };
  return {
    prepare(request, key) {
      const endpoint = trimSlash(options.baseURL ?? env.AZURE_OPENAI_ENDPOINT ?? "");
      if (endpoint === "") {
        throw new ProviderError({
          kind: "invalid_request",
          provider: name,
          message: `${name}: no endpoint. Set AZURE_OPENAI_ENDPOINT (https://<resource>.openai.azure.com) or pass baseURL.`,
        });
      }
      const headers: Record<string, string> = {
        accept: "text/event-stream",
        ...credentialHeader(name, key, options.apiKey ?? env.AZURE_OPENAI_API_KEY),
      };
      Object.assign(headers, options.headers, request.headers);
      if (responsesFor(request)) {
        return {
          url: `${endpoint}/openai/v1/responses`,
          headers,
          body: responsesRequestJson(request, { promptCacheKey }, cache),
        };
      }
      const version = env.OPENAI_API_VERSION ?? AZURE_DEFAULT_API_VERSION;
      const deployment = encodeURIComponent(request.model);
      return {
        url: `${endpoint}/openai/deployments/${deployment}/chat/completions?api-version=${encodeURIComponent(version)}`,
        headers,
        body: openaiRequestJson(request, true, cache),
      };
    },
    decoder: (request, model) =>
      responsesFor(request) ? responsesDecoder(name, model) : openaiDecoder(name, model),
  };
}

/** The Azure AI Model Inference API's wire (see the module comment): OpenAI Chat, the model in the body. */
function foundryProtocol({ name, env, options }: WireContext): WireProtocol {
  const cache = createJsonCache();
  return {
    prepare(request, key) {
      const configured = options.baseURL ?? env.AZURE_AI_ENDPOINT ?? env.AZURE_OPENAI_ENDPOINT ?? "";
      const endpoint = trimSlash(configured).replace(/\/models$/, "");
      if (endpoint === "") {
        throw new ProviderError({
          kind: "invalid_request",
          provider: name,
          message: `${name}: no endpoint. Set AZURE_AI_ENDPOINT (https://<resource>.services.ai.azure.com) or pass baseURL.`,
        });
      }
      const headers: Record<string, string> = {
        accept: "text/event-stream",
        "extra-parameters": "drop",
        ...credentialHeader(name, key, options.apiKey ?? env.AZURE_AI_API_KEY ?? env.AZURE_OPENAI_API_KEY),
      };
      Object.assign(headers, options.headers, request.headers);
      const version = env.AZURE_AI_API_VERSION ?? AZURE_MODELS_DEFAULT_API_VERSION;
      return {
        url: `${endpoint}/models/chat/completions?api-version=${encodeURIComponent(version)}`,
        headers,
        body: openaiRequestJson(request, false, cache),
      };
    },
    decoder: (_request, model) => openaiDecoder(name, model),
  };
}

/** `api-key` for a key; `authorization: Bearer` for an Entra ID token (a JWT, or given as `Bearer …`). */
function credentialHeader(
  name: string,
  fromCallback: string | undefined,
  configured: string | undefined,
): Record<string, string> {
  const credential = fromCallback ?? configured;
  if (!credential) {
    throw new ProviderError({
      kind: "authentication",
      provider: name,
      message: `${name}: no credential. Set AZURE_OPENAI_API_KEY (or pass apiKey), or answer an Entra ID token from getApiKey.`,
    });
  }
  if (/^bearer /i.test(credential)) return { authorization: `Bearer ${credential.slice(7).trim()}` };
  if (fromCallback !== undefined && /^eyJ[\w-]*\.[\w-]+\.[\w-]*$/.test(credential))
    return { authorization: `Bearer ${credential}` };
  return { "api-key": credential };
}
