/** Every provider the conformance suite runs against; add a descriptor here to add a provider. */
import type { ConformanceDescriptor } from "../descriptor.js";
import { anthropic } from "./anthropic.js";
import { azureChat, azureFoundry, azureResponses } from "./azure.js";
import { bedrockClaude, bedrockConverse } from "./bedrock.js";
import { gemini } from "./gemini.js";
import { openaiChat } from "./openai-chat.js";
import { openaiResponses } from "./openai-responses.js";
import { vertex, vertexGemini } from "./vertex.js";

export const descriptors: ConformanceDescriptor[] = [
  anthropic,
  openaiChat,
  openaiResponses,
  azureChat,
  azureResponses,
  azureFoundry,
  gemini,
  bedrockClaude,
  bedrockConverse,
  vertex,
  vertexGemini,
];
