/**
 * `goat-agent/providers`: model providers and what surrounds a model call — the Anthropic,
 * OpenAI (Chat Completions and Responses), Azure OpenAI and Gemini providers, `provider/model` resolution, the model catalog and prices, the retry
 * strategy, and the provider-neutral message and stream types a custom `Provider` speaks. `query()`
 * builds all of this from its options; import it to call a model directly or to write a provider.
 *
 * @example
 * import { accumulate, createProviderRegistry } from "goat-agent/providers";
 * const { provider, modelId } = createProviderRegistry().resolve("anthropic/claude-sonnet-4-5");
 * const answer = await accumulate(provider.stream({ model: modelId, messages, maxTokens: 1024 }));
 */

// ---- Providers and model resolution ----

export { type AccountInfo, type AccountSources, accountOf } from "./account.js";
export { createAnthropicProvider } from "./anthropic.js";
export type { AwsChainOptions } from "./aws-credentials.js";
export { type AzureWire, createAzureOpenAIProvider } from "./azure.js";
export { type BedrockOptions, createBedrockProvider } from "./bedrock.js";
export { createGeminiProvider } from "./gemini.js";
export type { GoogleAuthOptions } from "./google-auth.js";
export { createOpenAIProvider } from "./openai.js";
export { createOpenAIResponsesProvider } from "./openai-responses.js";
export type {
  ProviderConfig,
  ProviderDefaults,
  ProviderRegistry,
  ProviderSpec,
  ProviderType,
  ResolvedModel,
} from "./resolve.js";
export {
  claudeCloud,
  createProviderRegistry,
  defaultModel,
  expandModelAlias,
  MODEL_ALIASES,
  resolveModel,
} from "./resolve.js";
export type { ProviderTimeouts } from "./timeouts.js";
export { createVertexProvider, type VertexOptions } from "./vertex.js";

// ---- Errors ----

export type { ProviderErrorKind } from "./errors.js";
export { isContextOverflowMessage, isProviderError, ProviderError } from "./errors.js";

// ---- Calling a model ----

export { accumulate } from "./accumulate.js";
export type { RetryInfo, RetryOptions, StreamWithRetryOptions } from "./retry.js";
export { streamWithRetry } from "./retry.js";

// ---- Models, prices and cost ----

export type { ModelCatalog } from "./catalog.js";
export { createModelCatalog } from "./catalog.js";
export type { CallCost, ModelPriceInput } from "./cost.js";
export { computeCost } from "./cost.js";
export type { SupportedModel } from "./model-list.js";
export { supportedModels } from "./model-list.js";
export type { LongContextPricing, ModelInfo, ModelPricing } from "./models.js";
export { defaultModels } from "./models.js";

// ---- The provider-neutral data model ----

export type {
  ApiKeyResolver,
  AssistantMessage,
  ContentBlock,
  EffortLevel,
  ImageBlock,
  Message,
  ModelRequest,
  ModelStream,
  Provider,
  ProviderOptions,
  RedactedThinkingBlock,
  StopReason,
  StreamEvent,
  TextBlock,
  ThinkingBlock,
  ThinkingConfig,
  ToolChoice,
  ToolDefinition,
  ToolResultBlock,
  ToolUseBlock,
  Usage,
  UserMessage,
} from "./types.js";
export { addUsage, emptyUsage, textOf, toolCallsOf } from "./types.js";
