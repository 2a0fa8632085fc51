/**
 * Amazon Bedrock (`bedrock/…`): Claude through InvokeModelWithResponseStream, another vendor's model
 * through ConverseStream, both in the AWS event-stream framing, signed with SigV4 from the environment's
 * keys (a `getApiKey` answer is sent as a Bedrock API key, a bearer token).
 */
import { createBedrockProvider } from "../../../../src/llm/bedrock.js";
import type { MockRequest } from "../../../../src/testing/mock-replies.js";
import type { ConformanceDescriptor } from "../descriptor.js";
import { anthropic } from "./anthropic.js";

const env = {
  AWS_ACCESS_KEY_ID: "AKIDCONFORMANCE",
  AWS_SECRET_ACCESS_KEY: "secret",
  AWS_REGION: "us-east-1",
};

/** The bearer token, or the access key id a SigV4 signature names. */
function credentialOf(request: MockRequest): string | undefined {
  const auth = String(request.headers.authorization ?? "");
  if (auth.startsWith("Bearer ")) return auth.slice(7);
  return /Credential=([^/]+)\//.exec(auth)?.[1];
}

export const bedrockClaude: ConformanceDescriptor = {
  ...anthropic,
  name: "bedrock (Claude, invoke)",
  providerName: "bedrock",
  model: "claude-sonnet-4-5",
  format: "bedrock",
  create: (origin, options) =>
    createBedrockProvider({ baseURL: origin, ...options, env: { ...env, ...options?.env } }),
  credentialOf,
  overloadStatus: 503,
};

export const bedrockConverse: ConformanceDescriptor = {
  name: "bedrock (Converse)",
  providerName: "bedrock",
  model: "amazon.nova-pro-v1:0",
  format: "bedrock-converse",
  create: bedrockClaude.create,
  credentialOf,
  sentToolResults: (body) =>
    blocks(body)
      .filter((b) => b.toolResult)
      .map((b) => b.toolResult.toolUseId),
  sentImages: (body) =>
    blocks(body)
      .filter((b) => b.image)
      .map((b) => b.image.source.bytes),
  sentThinking: (body) =>
    blocks(body)
      .filter((b) => b.reasoningContent)
      .map((b) => b.reasoningContent.reasoningText?.signature),
  overloadStatus: 503,
};

function blocks(body: any): any[] {
  return (body?.messages ?? []).flatMap((m: any) => m.content ?? []);
}
