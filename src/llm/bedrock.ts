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
import { converseDecoder, converseRequestJson } from "./bedrock-converse.js";
import { invokeChunkEvent } from "./bedrock-invoke.js";
import { createJsonCache } from "./body-json.js";
import { credentialError, envFlag } from "./cloud-http.js";
import { bedrockModelId, isClaudeModel } from "./cloud-models.js";
import { openSse } from "./sse-reader.js";
import type { WireCall } from "./stream-call.js";
import type { ModelRequest, Provider, ProviderOptions } from "./types.js";
import { createWireProvider, trimSlash, type WireContext, type WireProtocol } from "./wire-provider.js";

/** Bedrock's own settings beyond the common provider options. */
export interface BedrockOptions extends ProviderOptions {
  /** The AWS region (default: the environment's, see the module comment). */
  region?: string;
  /** Where the credential chain looks (home directory, metadata timeouts); mostly for tests. */
  credentialChain?: AwsChainOptions;
}

/** A model's endpoint: whether the model is Claude (InvokeModel) or not (Converse), its URL. */
interface Endpoint {
  claude: boolean;
  url: string;
  parsed: URL;
}

/** Creates a Bedrock provider; credentials are resolved at the first call and refreshed before expiry. */
export function createBedrockProvider(options: BedrockOptions = {}): Provider {
  return createWireProvider("bedrock", options, (context) => bedrockProtocol(context, options));
}

/** Bedrock's wire: the model's endpoint, the body for Claude or Converse, the event-stream framing. */
function bedrockProtocol({ name, env }: WireContext, options: BedrockOptions): WireProtocol {
  const chainOptions = { env, proxy: options.proxy, ...options.credentialChain };
  const chain = createAwsCredentialChain(chainOptions);
  // One JSON cache per body format: a tool's cached JSON is its wire's.
  const cache = createJsonCache();
  const converseCache = createJsonCache();
  // Claude's answer (InvokeModel) arrives as Anthropic events wrapped in `chunk` frames, unwrapped in
  // the framing (bedrock-invoke.ts); Converse's as its own events.
  const invokeFraming = eventStreamFraming(name, invokeChunkEvent);
  const converseFraming = eventStreamFraming(name);
  const betas = (options.headers?.["anthropic-beta"] ?? "")
    .split(",")
    .map((b) => b.trim())
    .filter(Boolean);
  let signedWith: AwsCredentials | undefined;
  // The region comes from the environment or the profile's file: read once, not per call.
  let regionOnce: string | undefined;
  const region = (): string => {
    regionOnce ??= options.region ?? awsRegion(chainOptions);
    return regionOnce;
  };
  const signs = (key: string | undefined): boolean =>
    !envFlag(env.CLAUDE_CODE_SKIP_BEDROCK_AUTH) && !(key ?? options.apiKey ?? env.AWS_BEARER_TOKEN_BEDROCK);
  // Per model: its Bedrock id, whether it is Claude, its endpoint (the same every turn of a session),
  // parsed once for the signer.
  const endpoints = new Map<string, Endpoint>();
  const endpoint = (model: string): Endpoint => {
    const where = region();
    const base = trimSlash(
      options.baseURL ?? env.ANTHROPIC_BEDROCK_BASE_URL ?? `https://bedrock-runtime.${where}.amazonaws.com`,
    );
    const key = `${base} ${model}`;
    let hit = endpoints.get(key);
    if (!hit) {
      const modelId = bedrockModelId(model, where);
      const claude = isClaudeModel(modelId);
      const action = claude ? "invoke-with-response-stream" : "converse-stream";
      const url = `${base}/model/${encodeURIComponent(modelId)}/${action}`;
      hit = { claude, url, parsed: new URL(url) };
      endpoints.set(key, hit);
    }
    return hit;
  };

  /** The call, signed with `credentials` when given (else unsigned or with the bearer key). */
  const build = (request: ModelRequest, key: string | undefined, credentials?: AwsCredentials): WireCall => {
    const { claude, url, parsed } = endpoint(request.model);
    const body = claude
      ? anthropicRequestJson(request, cache, { anthropicVersion: "bedrock-2023-05-31", stream: false, betas })
      : converseRequestJson(request, converseCache);
    // Bedrock takes betas in the body (anthropic_beta), never as a header.
    const { "anthropic-beta": _beta, ...extra } = { ...options.headers, ...request.headers };
    const headers: Record<string, string> = {
      accept: "application/vnd.amazon.eventstream",
      "content-type": "application/json",
      ...extra,
    };
    if (!credentials) {
      const apiKey = envFlag(env.CLAUDE_CODE_SKIP_BEDROCK_AUTH)
        ? undefined
        : (key ?? options.apiKey ?? env.AWS_BEARER_TOKEN_BEDROCK);
      return { url, headers: apiKey ? { ...headers, authorization: `Bearer ${apiKey}` } : headers, body };
    }
    signedWith = credentials;
    const signed = signRequest({
      method: "POST",
      url: parsed,
      headers,
      body,
      region: region(),
      service: "bedrock",
      credentials,
    });
    return { url, headers: signed, body };
  };

  // Synchronous while the credentials are cached (every call but the first and those after a
  // refresh): no promise turn per call.
  const prepare = (request: ModelRequest, key: string | undefined): WireCall | Promise<WireCall> => {
    if (!signs(key)) return build(request, key);
    const cached = chain.peek();
    if (cached) return build(request, key, cached);
    return chain.get().then(
      (credentials) => build(request, key, credentials),
      (err) => {
        throw credentialError(name, err);
      },
    );
  };

  return {
    prepare,
    decoder: (request, model) =>
      endpoint(request.model).claude ? anthropicDecoder(name, model) : converseDecoder(name, model),
    openBody: (provider, res, signal, afterFirstDelta, idleMs, request) =>
      openSse(
        provider,
        res,
        signal,
        afterFirstDelta,
        idleMs,
        endpoint(request.model).claude ? invokeFraming : converseFraming,
      ),
    async renewCredential() {
      if (!signs(undefined)) return false;
      const refused = signedWith;
      chain.invalidate();
      try {
        const now = await chain.get();
        return (
          now.accessKeyId !== refused?.accessKeyId ||
          now.secretAccessKey !== refused?.secretAccessKey ||
          now.sessionToken !== refused?.sessionToken
        );
      } catch {
        return false; // the call's own error (the refusal) is the one to report
      }
    },
  };
}
