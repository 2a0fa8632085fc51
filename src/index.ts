/**
 * `goat-agent`: the documented API. Run an agent with `query()` (the Claude Agent SDK's, on any
 * provider) or `Agent`; give it tools with `defineTool` or an in-process MCP server; stop it with stop
 * conditions; catch `GoatError`. The message and option types are here, so code written against
 * the Claude Agent SDK type-checks with the import changed.
 *
 * Everything else has an entry point of its own: `goat-agent/tools` (built-in tools, `runTool`),
 * `/providers` (providers, model catalog, retry, cost), `/session` (stores, list/resume/fork),
 * `/permissions`, `/hooks`, `/mcp`, `/sandbox`, `/compaction`, `/settings`, `/agents` (subagents and
 * system prompts), `/loop` (`agentLoop` for embedders), `/testing` (the mock provider) and `/dbos`
 * (durable sessions). Each re-exports the same objects, so `instanceof` holds across them.
 */

// ---- Running an agent ----

export type { HookMatcherOption, SessionOptions, SystemPromptOption } from "./runtime/options.js";
export { Agent } from "./sdk/agent.js";
export type { Options, QueryOptions } from "./sdk/options.js";
export { IGNORED_OPTIONS, KNOWN_OPTIONS, REFUSED_OPTIONS } from "./sdk/options-check.js";
export type { Query, SDKUserMessageInput } from "./sdk/query.js";
export { query } from "./sdk/query.js";
export type { QueryControls } from "./sdk/query-controls.js";
export { CLAUDE_CODE_PROTOCOL_VERSION, GOAT_VERSION } from "./version.js";

// ---- The messages a query streams, and what its methods answer ----

export type {
  AssistantMessage,
  ContentBlock,
  ImageBlock,
  Message,
  RedactedThinkingBlock,
  StopReason,
  TextBlock,
  ThinkingBlock,
  ToolResultBlock,
  ToolUseBlock,
  Usage,
  UserMessage,
} from "./llm/types.js";
export type {
  AgentEvent,
  AgentEventListener,
  AgentMessage,
  CustomAgentMessage,
  ExitReason,
  TurnEndReason,
} from "./loop/events.js";
export type { AgentPhase, AgentState, AgentStateSnapshot } from "./loop/state.js";
export type { PermissionRulesListing } from "./permissions/rule-listing.js";
export type { RewindFilesResult } from "./runtime/file-checkpoints.js";
export type {
  PermissionModeName,
  SDKAPIRetryMessage,
  SDKAssistantMessage,
  SDKCompactBoundaryMessage,
  SDKContentBlock,
  SDKHookResponseMessage,
  SDKHookStartedMessage,
  SDKInformationalMessage,
  SDKMessage,
  SDKPartialAssistantMessage,
  SDKPermissionDenial,
  SDKPermissionDeniedMessage,
  SDKResultBase,
  SDKResultError,
  SDKResultMessage,
  SDKResultSuccess,
  SDKSystemInitMessage,
  SDKTaskNotificationMessage,
  SDKToolProgressMessage,
  SDKToolResultBlock,
  SDKUserMessage,
} from "./sdk/sdk-messages.js";
export type {
  AccountInfo,
  AgentInfo,
  ContextCategory,
  ContextUsage,
  InitializationResult,
  SlashCommand,
  SupportedModel,
} from "./sdk/session-info.js";

// ---- Tools ----

export type { CreateSdkMcpServerOptions } from "./mcp/sdk-server.js";
export { createSdkMcpServer, tool } from "./mcp/sdk-server.js";
export type {
  CallToolResult,
  McpHttpServerConfig,
  McpResource,
  McpResourceContents,
  McpSdkServerConfigWithInstance,
  McpServerConfig,
  McpServerLimits,
  McpServerStatus,
  McpSetServersResult,
  McpSSEServerConfig,
  McpStdioServerConfig,
  SdkMcpServerInstance,
  SdkMcpToolDefinition,
  ToolAnnotations,
} from "./mcp/types.js";
export type { JsonSchemaValidationOptions } from "./schema/json-schema-validator.js";
export type { StandardSchemaV1 } from "./schema/standard-schema.js";
export type { ShapeToolSpec, ToolInputSchema, ToolSpec } from "./tools/define-tool.js";
export { defineTool } from "./tools/define-tool.js";
export type { InferShape, JsonSchemaInput, StandardShape } from "./tools/tool-schema.js";
export { jsonSchema } from "./tools/tool-schema.js";
export type { SideEffect, Tool, ToolContent, ToolContext, ToolResult } from "./tools/types.js";

// ---- Options: providers, permissions, hooks, sandbox, sessions, output ----

export type {
  BaseHookInput,
  CommandHookEntry,
  HookCallback,
  HookCallbackMatcher,
  HookEvent,
  HookInput,
  HookJSONOutput,
  HookPermissionDecision,
  HookSpecificOutput,
  NotificationHookInput,
  PermissionRequestDecision,
  PermissionRequestHookInput,
  PostCompactHookInput,
  PostToolUseFailureHookInput,
  PostToolUseHookInput,
  PreCompactHookInput,
  PreToolUseHookInput,
  SessionEndHookInput,
  SessionStartHookInput,
  SessionStartSource,
  StopHookInput,
  SubagentStartHookInput,
  SubagentStopHookInput,
  UserPromptSubmitHookInput,
} from "./hooks/types.js";
export { HOOK_EVENTS } from "./hooks/types.js";
export type { ModelPriceInput } from "./llm/cost.js";
export type { LongContextPricing, ModelInfo, ModelPricing } from "./llm/models.js";
export type { ProviderConfig, ProviderSpec, ProviderType } from "./llm/resolve.js";
export type { RetryOptions } from "./llm/retry.js";
export type { ProviderTimeouts } from "./llm/timeouts.js";
export type { ApiKeyResolver, EffortLevel, ThinkingConfig } from "./llm/types.js";
export type {
  CompactionOutcome,
  CompactionTrigger,
  Compactor,
  ConvertToLlm,
  MessageSource,
  TransformContext,
} from "./loop/loop-config.js";
export type {
  CanUseTool,
  CanUseToolOptions,
  PermissionBehavior,
  PermissionMode,
  PermissionResult,
  PermissionRuleValue,
  PermissionUpdate,
  PermissionUpdateDestination,
} from "./permissions/types.js";
export type { PermissionWording } from "./permissions/wording.js";
export { type OutputFormat, STRUCTURED_OUTPUT_TOOL } from "./runtime/structured-output.js";
export type { AgentDefinition } from "./runtime/subagents.js";
export type { SandboxNetworkSettings, SandboxSettings } from "./sandbox/settings.js";
export type { SkillDefinition } from "./settings/skill-files.js";
export type { SlashCommandDefinition } from "./settings/slash-command-files.js";
export type { OtelTracerLike, TelemetryOption } from "./telemetry/option.js";
export type {
  WebSearchBackend,
  WebSearchOption,
  WebSearchRequest,
  WebSearchResult,
} from "./tools/web/search-backend.js";

// ---- Sessions (the Claude Agent SDK's helpers) ----

export { forkSession, getSessionMessages, listSessions, type SessionHelperOptions } from "./session/api.js";
export type { SessionInfo, SessionStore } from "./session/types.js";

// ---- Stop conditions ----

export type { StepResult, StopCondition } from "./loop/stop-conditions.js";
export { costExceeds, hasToolCall, stepCountIs, tokensExceed } from "./loop/stop-conditions.js";

// ---- Errors: every one a caller can catch is a GoatError with a stable `code` ----

export {
  AbortError,
  CompactionError,
  GoatError,
  InvalidOptionError,
  isGoatError,
  SessionNotFoundError,
  SettingsError,
} from "./errors.js";
export { isProviderError, ProviderError, type ProviderErrorKind } from "./llm/errors.js";
export { McpConfigError } from "./mcp/errors.js";
export { PermissionRuleError } from "./permissions/errors.js";
export { FlagSettingsError } from "./runtime/flag-settings.js";
export { SandboxUnavailableError } from "./sandbox/errors.js";
export { SandboxSettingsError } from "./sandbox/settings.js";
export { ManagedSettingsError } from "./settings/managed.js";
export { InvalidToolError } from "./tools/errors.js";
export { WebSearchConfigError } from "./tools/web/search-backend.js";
