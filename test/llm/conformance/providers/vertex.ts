/** Claude on Google Vertex AI (`vertex/…`): `:streamRawPredict`, the Anthropic SSE stream, a bearer token. */
import { createVertexProvider } from "../../../../src/llm/vertex.js";
import type { ConformanceDescriptor } from "../descriptor.js";
import { anthropic } from "./anthropic.js";

export const vertex: ConformanceDescriptor = {
  ...anthropic,
  name: "vertex (Claude)",
  providerName: "vertex",
  format: "vertex",
  create: (origin, options) =>
    createVertexProvider({
      baseURL: `${origin}/v1`,
      apiKey: "test-token",
      project: "proj",
      region: "us-east5",
      ...options,
    }),
  credentialOf: (request) => String(request.headers.authorization ?? "").replace(/^Bearer /, "") || undefined,
  overloadStatus: 529,
};
