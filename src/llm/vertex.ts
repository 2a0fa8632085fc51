/**
 * The Google Vertex AI provider (`vertex/<model>`). Claude goes through
 * `POST {base}/projects/{project}/locations/{region}/publishers/anthropic/models/{model}:streamRawPredict`
 * with the Messages body (`anthropic_version: "vertex-2023-10-16"`, no `model`), and answers with the
 * Anthropic SSE stream, read by the Anthropic decoder. Gemini models go through
 * `…/publishers/google/models/{model}:streamGenerateContent?alt=sse` with the Gemini API's body.
 *
 * Auth: none with `CLAUDE_CODE_SKIP_VERTEX_AUTH=1` (a gateway adds it); a bearer token from `apiKey` /
 * `getApiKey`; else Application Default Credentials (google-auth.ts). Project:
 * `ANTHROPIC_VERTEX_PROJECT_ID`, `GOOGLE_CLOUD_PROJECT`, `GCLOUD_PROJECT`, else the credentials'.
 * Region: `CLOUD_ML_REGION` (default `us-east5`, as Claude Code); `ANTHROPIC_VERTEX_BASE_URL` replaces
 * the regional endpoint.
 */
import { anthropicDecoder } from "./anthropic.js";
import { anthropicRequestJson } from "./anthropic-request.js";
import { createJsonCache } from "./body-json.js";
import { envFlag } from "./cloud-http.js";
import { isClaudeModel, vertexModelId } from "./cloud-models.js";
import { ProviderError } from "./errors.js";
import { geminiDecoder } from "./gemini-decoder.js";
import { createGeminiRequestJson } from "./gemini-request.js";
import { createGoogleTokenSource, type GoogleAuthOptions, type GoogleToken } from "./google-auth.js";
import type { WireCall } from "./stream-call.js";
import type { ModelRequest, Provider, ProviderOptions } from "./types.js";
import { createWireProvider, trimSlash, type WireContext, type WireProtocol } from "./wire-provider.js";

/** Vertex's own settings beyond the common provider options. */
export interface VertexOptions extends ProviderOptions {
  /** The Google Cloud project (default: the environment's, see the module comment). */
  project?: string;
  /** The region (default `CLOUD_ML_REGION`, else `us-east5`). */
  region?: string;
  /** Where credentials come from (home directory); mostly for tests. */
  googleAuth?: GoogleAuthOptions;
}

/** Creates a Vertex provider; the access token is fetched at the first call and refreshed before expiry. */
export function createVertexProvider(options: VertexOptions = {}): Provider {
  return createWireProvider("vertex", options, (context) => vertexProtocol(context, options));
}

/**
 * Vertex's wire: Claude through `:streamRawPredict` (the Anthropic SSE stream), Gemini through
 * `:streamGenerateContent?alt=sse` with the Gemini API's body and stream (gemini-request.ts,
 * gemini-decoder.ts), each on its publisher's path.
 */
export function vertexProtocol({ name, env }: WireContext, options: VertexOptions): WireProtocol {
  const tokens = createGoogleTokenSource({ env, proxy: options.proxy, ...options.googleAuth });
  const cache = createJsonCache();
  const geminiBody = createGeminiRequestJson(createJsonCache());
  let sentToken: string | undefined;

  const prepare = async (request: ModelRequest, key: string | undefined): Promise<WireCall> => {
    const modelId = vertexModelId(request.model);
    const claude = isClaudeModel(modelId);
    const region = options.region ?? env.CLOUD_ML_REGION ?? "us-east5";
    const skipAuth = envFlag(env.CLAUDE_CODE_SKIP_VERTEX_AUTH);
    const bearer = skipAuth ? undefined : (key ?? options.apiKey);
    let token: GoogleToken | undefined;
    if (!skipAuth && !bearer) {
      try {
        token = await tokens.get();
      } catch (err) {
        throw new ProviderError({
          kind: "authentication",
          provider: name,
          message: `${name}: ${(err as Error).message}`,
          cause: err,
        });
      }
      sentToken = token.accessToken;
    }
    const project =
      options.project ??
      env.ANTHROPIC_VERTEX_PROJECT_ID ??
      env.GOOGLE_CLOUD_PROJECT ??
      env.GCLOUD_PROJECT ??
      token?.projectId;
    if (!project) {
      throw new ProviderError({
        kind: "invalid_request",
        provider: name,
        message: `${name}: no Google Cloud project; set ANTHROPIC_VERTEX_PROJECT_ID (or GOOGLE_CLOUD_PROJECT)`,
      });
    }
    const host =
      region === "global"
        ? "https://aiplatform.googleapis.com"
        : `https://${region}-aiplatform.googleapis.com`;
    const base = trimSlash(options.baseURL ?? env.ANTHROPIC_VERTEX_BASE_URL ?? `${host}/v1`);
    // Vertex's model ids carry their release after an "@", which the path keeps as is.
    const model = encodeURIComponent(modelId).replace("%40", "@");
    const publisher = claude ? "anthropic/models" : "google/models";
    const action = claude ? ":streamRawPredict" : ":streamGenerateContent?alt=sse";
    const url = `${base}/projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(region)}/publishers/${publisher}/${model}${action}`;
    const headers: Record<string, string> = {
      accept: "text/event-stream",
      ...options.headers,
      ...request.headers,
    };
    const accessToken = bearer ?? token?.accessToken;
    if (accessToken) headers.authorization = `Bearer ${accessToken}`;
    if (token?.quotaProjectId) headers["x-goog-user-project"] = token.quotaProjectId;
    const body = claude
      ? anthropicRequestJson(request, cache, { anthropicVersion: "vertex-2023-10-16", stream: true })
      : geminiBody(request);
    return { url, headers, body };
  };

  return {
    prepare,
    decoder: (request, model) =>
      isClaudeModel(vertexModelId(request.model))
        ? anthropicDecoder(name, model)
        : geminiDecoder(name, model),
    async renewCredential() {
      if (envFlag(env.CLAUDE_CODE_SKIP_VERTEX_AUTH) || options.apiKey || sentToken === undefined)
        return false;
      tokens.invalidate();
      try {
        return (await tokens.get()).accessToken !== sentToken;
      } catch {
        return false; // the refusal is the error to report
      }
    },
  };
}
