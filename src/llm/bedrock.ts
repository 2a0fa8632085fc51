/**
 * The Amazon Bedrock provider (`bedrock/<model>`). Claude goes through
 * `POST /model/{id}/invoke-with-response-stream` with the Messages body (every Claude feature: thinking
 * signatures, cache breakpoints, betas), decoded by the Anthropic decoder; other models through
 * `POST /model/{id}/converse-stream` (bedrock-converse.ts). Both answers arrive in the AWS event-stream
 * framing (aws-event-stream.ts).
 *
 * Auth, in order: none with `CLAUDE_CODE_SKIP_BEDROCK_AUTH=1` (a gateway signs); a Bedrock API key as a
 * bearer token (`AWS_BEARER_TOKEN_BEDROCK`, or `apiKey` / `getApiKey`); else SigV4 with credentials from
 * the standard chain (aws-credentials.ts). Region: `AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's,
 * else `us-east-1`; `ANTHROPIC_BEDROCK_BASE_URL` replaces the regional endpoint.
 */
import { anthropicDecoder } from "./anthropic.js";
import { anthropicRequestJson } from "./anthropic-request.js";
import { type AwsChainOptions, awsRegion, createAwsCredentialChain } from "./aws-credentials.js";
import { eventStreamFraming } from "./aws-event-stream.js";
import { type AwsCredentials, signRequest } from "./aws-sigv4.js";
import { converseDecoder, converseRequestBody } from "./bedrock-converse.js";
import { createJsonCache } from "./body-json.js";
import { envFlag } from "./cloud-http.js";
import { bedrockModelId, isClaudeModel } from "./cloud-models.js";
import { isProviderError, ProviderError } from "./errors.js";
import { createHttpTransport, type HttpTransport } from "./http.js";
import { parseData } from "./sse-reader.js";
import { streamCall, type WireCall, type WireDecoder } from "./stream-call.js";
import type { ModelRequest, Provider, ProviderOptions } from "./types.js";

/** Bedrock's own settings beyond the common provider options. */
export interface BedrockOptions extends ProviderOptions {
  /** The AWS region (default: the environment's, see the module comment). */
  region?: string;
  /** Where the credential chain looks (home directory, metadata timeouts); mostly for tests. */
  credentialChain?: AwsChainOptions;
}

/** Creates a Bedrock provider; credentials are resolved at the first call and refreshed before expiry. */
export function createBedrockProvider(options: BedrockOptions = {}): Provider {
  const name = options.name ?? "bedrock";
  const env = options.env ?? process.env;
  const chainOptions = { env, ...options.credentialChain };
  const chain = createAwsCredentialChain(chainOptions);
  const transport = bedrockErrors(
    createHttpTransport(name, { timeouts: options.timeouts, proxy: options.proxy, env }),
    () => chain.invalidate(),
  );
  const cache = createJsonCache();
  const framing = eventStreamFraming(name);
  const betas = (options.headers?.["anthropic-beta"] ?? "")
    .split(",")
    .map((b) => b.trim())
    .filter(Boolean);

  const prepare = async (request: ModelRequest, claude: boolean, modelId: string): Promise<WireCall> => {
    const region = options.region ?? awsRegion(chainOptions);
    const base = (
      options.baseURL ??
      env.ANTHROPIC_BEDROCK_BASE_URL ??
      `https://bedrock-runtime.${region}.amazonaws.com`
    ).replace(/\/+$/, "");
    const action = claude ? "invoke-with-response-stream" : "converse-stream";
    const url = `${base}/model/${encodeURIComponent(modelId)}/${action}`;
    const body = claude
      ? anthropicRequestJson(request, cache, { anthropicVersion: "bedrock-2023-05-31", stream: false, betas })
      : JSON.stringify(converseRequestBody(request));
    const { "anthropic-beta": _beta, ...extra } = { ...options.headers, ...request.headers };
    const headers: Record<string, string> = {
      accept: "application/vnd.amazon.eventstream",
      "content-type": "application/json",
      ...extra,
    };
    if (envFlag(env.CLAUDE_CODE_SKIP_BEDROCK_AUTH)) return { url, headers, body };
    const apiKey =
      (options.getApiKey ? await options.getApiKey(name) : undefined) ??
      options.apiKey ??
      env.AWS_BEARER_TOKEN_BEDROCK;
    if (apiKey) return { url, headers: { ...headers, authorization: `Bearer ${apiKey}` }, body };
    let credentials: AwsCredentials;
    try {
      credentials = await chain.get();
    } catch (err) {
      throw new ProviderError({
        kind: "authentication",
        provider: name,
        message: `${name}: ${(err as Error).message}`,
        cause: err,
      });
    }
    const signed = signRequest({
      method: "POST",
      url: new URL(url),
      headers,
      body,
      region,
      service: "bedrock",
      credentials,
    });
    return { url, headers: signed, body };
  };

  return {
    name,
    close: () => transport.close(),
    stream(request) {
      const region = options.region ?? awsRegion(chainOptions);
      const modelId = bedrockModelId(request.model, region);
      const claude = isClaudeModel(modelId);
      const label = `${name}/${request.model}`;
      const decoder = claude ? invokeDecoder(name, label) : converseDecoder(name, label);
      return streamCall(name, transport, request, () => prepare(request, claude, modelId), decoder, framing);
    },
  };
}

/**
 * InvokeModelWithResponseStream wraps each Anthropic stream event in a `chunk` event whose payload is
 * `{"bytes": base64(event JSON)}`: unwrapped here and handed to the Anthropic decoder.
 */
function invokeDecoder(provider: string, model: string): WireDecoder {
  const inner = anthropicDecoder(provider, model);
  return {
    get ended() {
      return inner.ended;
    },
    get afterFirstDelta() {
      return inner.afterFirstDelta;
    },
    finish: (out) => inner.finish(out),
    onEvent(sse, out) {
      if (sse.event !== "chunk") return;
      const wrapper = parseData(provider, sse.data, inner.afterFirstDelta);
      const data = Buffer.from(String(wrapper?.bytes ?? ""), "base64").toString("utf8");
      inner.onEvent({ event: "message", data }, out);
    },
  };
}

/**
 * Bedrock's HTTP errors in Goat's terms: 503 ServiceUnavailableException is an overloaded model, not a
 * server fault; a refused signature (401/403) drops the cached credentials, so the next call (a retry,
 * or the user's next turn) signs with freshly resolved ones, e.g. after `aws sso login` or a rotation.
 */
function bedrockErrors(transport: HttpTransport, onAuthFailure: () => void): HttpTransport {
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
        if (isProviderError(err) && err.status === 503) {
          throw new ProviderError({
            kind: "overloaded",
            provider: err.provider,
            status: 503,
            retryAfterMs: err.retryAfterMs,
            message: err.message,
            cause: err,
          });
        }
        throw err;
      }
    },
  };
}
