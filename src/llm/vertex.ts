/**
 * The Google Vertex AI provider (`vertex/<model>`). Claude goes through
 * `POST {base}/projects/{project}/locations/{region}/publishers/anthropic/models/{model}:streamRawPredict`
 * with the Messages body (`anthropic_version: "vertex-2023-10-16"`, no `model`), and answers with the
 * Anthropic SSE stream, read by the Anthropic decoder.
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
import { isProviderError, ProviderError } from "./errors.js";
import { createGoogleTokenSource, type GoogleAuthOptions, type GoogleToken } from "./google-auth.js";
import { createHttpTransport, type HttpTransport } from "./http.js";
import { streamCall, type WireCall } from "./stream-call.js";
import type { ModelRequest, Provider, ProviderOptions } from "./types.js";

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
  const name = options.name ?? "vertex";
  const env = options.env ?? process.env;
  const tokens = createGoogleTokenSource({ env, proxy: options.proxy, ...options.googleAuth });
  const transport = vertexErrors(
    createHttpTransport(name, { timeouts: options.timeouts, proxy: options.proxy, env }),
    () => tokens.invalidate(),
  );
  const cache = createJsonCache();

  const prepare = async (request: ModelRequest, modelId: string): Promise<WireCall> => {
    if (!isClaudeModel(modelId)) {
      throw new ProviderError({
        kind: "invalid_request",
        provider: name,
        message: `${name}: "${request.model}" is not a Claude model; Goat speaks Claude on Vertex (Gemini on Vertex is not built yet: use gemini/<model> with GEMINI_API_KEY)`,
      });
    }
    const region = options.region ?? env.CLOUD_ML_REGION ?? "us-east5";
    const skipAuth = envFlag(env.CLAUDE_CODE_SKIP_VERTEX_AUTH);
    const bearer = skipAuth
      ? undefined
      : ((options.getApiKey ? await options.getApiKey(name) : undefined) ?? options.apiKey);
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
    const base = (options.baseURL ?? env.ANTHROPIC_VERTEX_BASE_URL ?? `${host}/v1`).replace(/\/+$/, "");
    const url = `${base}/projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(region)}/publishers/anthropic/models/${encodeURIComponent(modelId).replace("%40", "@")}:streamRawPredict`;
    const headers: Record<string, string> = {
      accept: "text/event-stream",
      ...options.headers,
      ...request.headers,
    };
    const accessToken = bearer ?? token?.accessToken;
    if (accessToken) headers.authorization = `Bearer ${accessToken}`;
    if (token?.quotaProjectId) headers["x-goog-user-project"] = token.quotaProjectId;
    const body = anthropicRequestJson(request, cache, {
      anthropicVersion: "vertex-2023-10-16",
      stream: true,
    });
    return { url, headers, body };
  };

  return {
    name,
    close: () => transport.close(),
    stream(request) {
      const modelId = vertexModelId(request.model);
      const label = `${name}/${request.model}`;
      return streamCall(
        name,
        transport,
        request,
        () => prepare(request, modelId),
        anthropicDecoder(name, label),
      );
    },
  };
}

/**
 * Vertex's errors in Goat's terms: 429 RESOURCE_EXHAUSTED is already `rate_limit` by status; a refused
 * token (401/403) drops the cached one so the next call fetches a new one.
 */
function vertexErrors(transport: HttpTransport, onAuthFailure: () => void): HttpTransport {
  return {
    get timeouts() {
      return transport.timeouts;
    },
    close: () => transport.close(),
    async post(url, headers, body, signal) {
      try {
        return await transport.post(url, headers, body, signal);
      } catch (err) {
        if (isProviderError(err) && err.kind === "authentication") onAuthFailure();
        throw err;
      }
    },
  };
}
