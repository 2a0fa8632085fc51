/**
 * The Google Gemini API provider (`gemini/<model>`): neutral request → `POST
 * {base}/v1beta/models/{model}:streamGenerateContent?alt=sse` with the key in `x-goog-api-key`
 * (`GEMINI_API_KEY`, then `GOOGLE_API_KEY`), base URL from `GOOGLE_GEMINI_BASE_URL`. The body and the
 * stream are Gemini's on every platform (gemini-request.ts, gemini-decoder.ts; Vertex reuses them).
 */
import { createJsonCache } from "./body-json.js";
import { geminiDecoder } from "./gemini-decoder.js";
import { createGeminiRequestJson } from "./gemini-request.js";
import { missingKeyError } from "./http.js";
import type { Provider, ProviderOptions } from "./types.js";
import { createWireProvider, trimSlash, type WireContext, type WireProtocol } from "./wire-provider.js";

const DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com";

/** Creates a Gemini API provider; key and base URL are resolved before each call (options, then env). */
export function createGeminiProvider(options: ProviderOptions = {}): Provider {
  return createWireProvider("gemini", options, geminiProtocol);
}

/** The Gemini API wire. */
function geminiProtocol({ name, env, options }: WireContext): WireProtocol {
  const body = createGeminiRequestJson(createJsonCache());
  return {
    prepare(request, key) {
      const apiKey = key ?? options.apiKey ?? env.GEMINI_API_KEY ?? env.GOOGLE_API_KEY;
      const baseURL = trimSlash(options.baseURL ?? env.GOOGLE_GEMINI_BASE_URL ?? DEFAULT_BASE_URL);
      if (!apiKey && baseURL === DEFAULT_BASE_URL)
        throw missingKeyError(name, "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL");
      const headers: Record<string, string> = { accept: "text/event-stream" };
      if (apiKey) headers["x-goog-api-key"] = apiKey;
      Object.assign(headers, options.headers, request.headers);
      // A base URL that names its API version (…/v1beta, …/v1) is used as is.
      const root = /\/v\d+(?:alpha|beta)?\d*$/.test(baseURL) ? baseURL : `${baseURL}/v1beta`;
      const model = request.model.startsWith("models/") ? request.model.slice(7) : request.model;
      return {
        url: `${root}/models/${encodeURIComponent(model)}:streamGenerateContent?alt=sse`,
        headers,
        body: body(request),
      };
    },
    decoder: (_request, model) => geminiDecoder(name, model),
  };
}
