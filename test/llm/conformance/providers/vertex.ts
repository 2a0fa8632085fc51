/** Claude on Google Vertex AI (`vertex/…`): `:streamRawPredict`, the Anthropic SSE stream, a bearer token. */
import { createVertexProvider } from "../../../../src/llm/vertex.js";
import type { ConformanceDescriptor } from "../descriptor.js";
import { anthropic } from "./anthropic.js";
import { gemini } from "./gemini.js";

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

/** Gemini on Vertex (`vertex/gemini-…`): the Gemini API's body and stream on Vertex's publisher path. */
export const vertexGemini: ConformanceDescriptor = {
  ...gemini,
  name: "vertex (Gemini)",
  providerName: "vertex",
  create: vertex.create,
  credentialOf: vertex.credentialOf,
};
