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
 * Region: Claude Code's per-model `VERTEX_REGION_<MODEL>` (e.g. `VERTEX_REGION_CLAUDE_3_5_HAIKU`, see
 * cloud-models.ts), else `CLOUD_ML_REGION` (default `us-east5`, as Claude Code);
 * `ANTHROPIC_VERTEX_BASE_URL` replaces the regional endpoint.
 */
import { anthropicDecoder } from "./anthropic.js";
import { anthropicRequestJson } from "./anthropic-request.js";
import { createJsonCache } from "./body-json.js";
import { credentialError, envFlag } from "./cloud-http.js";
import { isClaudeModel, vertexModelId, vertexRegionOverride } from "./cloud-models.js";
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
function vertexProtocol({ name, env }: WireContext, options: VertexOptions): WireProtocol {
  const tokens = createGoogleTokenSource({ env, proxy: options.proxy, ...options.googleAuth });
  const cache = createJsonCache();
  const geminiBody = createGeminiRequestJson(createJsonCache());
  let sentToken: string | undefined;

  // Per model: its Vertex id, whether it is Claude, and its region (the same every turn of a session).
  type VertexModel = { modelId: string; claude: boolean; region: string };
  const models = new Map<string, VertexModel>();
  const modelOf = (model: string): VertexModel => {
    let hit = models.get(model);
    if (!hit) {
      const modelId = vertexModelId(model);
      const region =
        options.region ?? vertexRegionOverride(modelId, env) ?? env.CLOUD_ML_REGION ?? "us-east5";
      hit = { modelId, claude: isClaudeModel(modelId), region };
      models.set(model, hit);
    }
    return hit;
  };

  /** The call with `bearer` (a key, or ADC's token) or, with CLAUDE_CODE_SKIP_VERTEX_AUTH, none. */
  const build = (request: ModelRequest, bearer: string | undefined, token?: GoogleToken): WireCall => {
    const { modelId, claude, region } = modelOf(request.model);
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
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    if (token?.quotaProjectId) headers["x-goog-user-project"] = token.quotaProjectId;
    const body = claude
      ? anthropicRequestJson(request, cache, { anthropicVersion: "vertex-2023-10-16", stream: true })
      : geminiBody(request);
    return { url, headers, body };
  };

  // Synchronous with a key, without auth, or while ADC's token is cached: no promise turn per call.
  const prepare = (request: ModelRequest, key: string | undefined): WireCall | Promise<WireCall> => {
    if (envFlag(env.CLAUDE_CODE_SKIP_VERTEX_AUTH)) return build(request, undefined);
    const bearer = key ?? options.apiKey;
    if (bearer) return build(request, bearer);
    const cached = tokens.peek();
    if (cached) {
      sentToken = cached.accessToken;
      return build(request, cached.accessToken, cached);
    }
    return tokens.get().then(
      (token) => {
        sentToken = token.accessToken;
        return build(request, token.accessToken, token);
      },
      (err) => {
        throw credentialError(name, err);
      },
    );
  };

  return {
    prepare,
    decoder: (request, model) =>
      modelOf(request.model).claude ? anthropicDecoder(name, model) : geminiDecoder(name, model),
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
