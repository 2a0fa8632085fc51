/**
 * Goat's public API: everything a program imports from "goat". Each export has a one-line comment
 * here; the types carry the details.
 */

// ---- Compaction, MCP, subagents -----------------------------------------------------------------
/** The default summarizer and the pure helpers behind it (cut points that never split a tool pair). */
export * from "./compaction/index.js";
/** The base class of every error Goat throws for a caller to catch, with a stable `code`. */
export { GoatError, isGoatError } from "./errors.js";
/** Hook events, callbacks, command hooks from settings files, and the runner. */
export * from "./hooks/index.js";
/** A PreToolUse hook's `permissionDecision` value. */
export type { HookPermissionDecision as HookPermissionDecisionValue } from "./hooks/types.js";
/** Consumes a model stream and returns the final message. */
export { accumulate } from "./llm/accumulate.js";
/** The Anthropic Messages provider. */
export { createAnthropicProvider } from "./llm/anthropic.js";
/** A per-session model catalog. */
export type { ModelCatalog } from "./llm/catalog.js";
/** Model limits and prices, and the cost of a call. */
export { createModelCatalog } from "./llm/catalog.js";
/** Cost of a call, and a price given in `modelPricing`. */
export type { CallCost, ModelPriceInput } from "./llm/cost.js";
/** The cost of one call from its usage. */
export { computeCost } from "./llm/cost.js";
/** What kind of provider error. */
export type { ProviderErrorKind } from "./llm/errors.js";
/** Typed provider errors. */
export { isContextOverflowMessage, isProviderError, ProviderError } from "./llm/errors.js";
/** What is known about a model. */
export type { ModelInfo, ModelPricing } from "./llm/models.js";
/** The built-in model list. */
export { defaultModels } from "./llm/models.js";
/** The OpenAI Chat Completions provider (also LiteLLM, vLLM, Ollama, llama.cpp). */
export { createOpenAIProvider } from "./llm/openai.js";
/** Provider configs and resolution results. */
export type {
  ProviderConfig,
  ProviderRegistry,
  ProviderSpec,
  ProviderType,
  ResolvedModel,
} from "./llm/resolve.js";
/** Resolves `provider/model` ids to providers; one registry per session. */
export { createProviderRegistry, resolveModel } from "./llm/resolve.js";
/** Retry options and the per-retry report. */
export type { RetryInfo, RetryOptions } from "./llm/retry.js";
/** Backoff with jitter and retry-after; the one retry strategy. */
export { streamWithRetry } from "./llm/retry.js";
/** Stall limits of provider calls (connect, first byte, idle mid-stream). */
export type { ProviderTimeouts } from "./llm/timeouts.js";
// ---- Providers and models -----------------------------------------------------------------------
/** The provider-neutral data model. */
export type {
  AssistantMessage,
  ContentBlock,
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
  ToolChoice,
  ToolDefinition,
  ToolResultBlock,
  ToolUseBlock,
  Usage,
  UserMessage,
} from "./llm/types.js";
/** Helpers over messages and usage. */
export { addUsage, emptyUsage, textOf, toolCallsOf } from "./llm/types.js";
/** A session's history, totals and per-model usage. */
export type { LoopSession, ModelUsage } from "./loop/context.js";
/** A history and its running totals, the state that lives across runs of the loop. */
export { createLoopSession, defaultConvertToLlm, estimateMessageTokens } from "./loop/context.js";
// ---- Events, messages and state -----------------------------------------------------------------
/** The fine-grained lifecycle events of the loop (seed 001). */
export type {
  AgentEvent,
  AgentEventListener,
  AgentMessage,
  CustomAgentMessage,
  ExitReason,
  TurnEndReason,
} from "./loop/events.js";
/** What one run of the loop did and why it ended. */
export type { RunControl, RunOutcome } from "./loop/loop.js";
/** The loop itself, for embedders who build their own config (see `LoopConfig`). */
export { agentLoop } from "./loop/loop.js";
/** Everything the loop reads, its extension points, and the compactor contract. */
export type {
  AfterToolCallOutcome,
  BeforeToolCallDecision,
  CompactionOutcome,
  Compactor,
  LoopConfig,
  ModelCaller,
  StopHookOutcome,
  ToolCallInfo,
} from "./loop/loop-config.js";
/** Builds the loop's `callModel` from a provider registry, with retries and a fallback model. */
export { createModelCaller } from "./loop/model-caller.js";
/** Agent state types. */
export type { AgentPhase, AgentState, AgentStateSnapshot, MutableAgentState } from "./loop/state.js";
/** The observable phase and step of a running agent (seed 002). */
export { createAgentState, isTerminalPhase } from "./loop/state.js";
/** A stop predicate and the step record it reads. */
export type { StepResult, StopCondition } from "./loop/stop-conditions.js";
/** Stop predicates for `stopWhen`: after N steps, after a tool call, past a cost or token count. */
export { costExceeds, hasToolCall, stepCountIs, tokensExceed } from "./loop/stop-conditions.js";
/** MCP servers (stdio, HTTP, SSE, in-process), `createSdkMcpServer` and the `tool()` helper. */
export * from "./mcp/index.js";
/** The decision a PreToolUse hook hands to the permission engine (both modules name one; this wins). */
export type { HookPermissionDecision } from "./permissions/index.js";
// ---- Permissions, hooks, sessions ---------------------------------------------------------------
/** Permission modes, rules, canUseTool and the engine that decides each tool call. */
export * from "./permissions/index.js";
/** What `rewindFiles()` answers. */
export type { RewindFilesResult } from "./runtime/file-checkpoints.js";
/** The options of `query()` and `Agent`. */
export type { QueryOptions, SystemPromptOption } from "./runtime/options.js";
/** The SDK message stream's shapes. */
export type {
  PermissionModeName,
  SDKAPIRetryMessage,
  SDKAssistantMessage,
  SDKCompactBoundaryMessage,
  SDKInformationalMessage,
  SDKMessage,
  SDKPartialAssistantMessage,
  SDKPermissionDenial,
  SDKPermissionDeniedMessage,
  SDKResultError,
  SDKResultMessage,
  SDKResultSuccess,
  SDKSystemInitMessage,
  SDKTaskNotificationMessage,
  SDKToolProgressMessage,
  SDKUserMessage,
} from "./runtime/sdk-messages.js";
/** What the Query's informational methods answer (agents, models, account, context usage, initialize). */
export type {
  AccountInfo,
  AgentInfo,
  ContextCategory,
  ContextUsage,
  InitializationResult,
  SlashCommand,
  SupportedModel,
} from "./runtime/session-info.js";
/** The `outputFormat` option, and the name of the tool it offers. */
export { type OutputFormat, STRUCTURED_OUTPUT_TOOL } from "./runtime/structured-output.js";
/** A subagent definition (the Claude Agent SDK's `AgentDefinition`). */
export type { AgentDefinition, SubagentParent } from "./runtime/subagents.js";
/** Subagents for the Task tool, and the built-in general-purpose agent. */
export { createTaskTool, GENERAL_PURPOSE_AGENT, runSubagent } from "./runtime/subagents.js";
/** The built-in coding-agent system prompt, and the minimal default. */
export { codingAgentPrompt, MINIMAL_SYSTEM_PROMPT } from "./runtime/system-prompt.js";
/** The OS sandbox for Bash: its settings (the `sandbox` option), the session object, and its errors. */
export * from "./sandbox/index.js";
/** The Standard Schema contract every tool input schema implements (zod, valibot, arktype…). */
export type { StandardSchemaV1 } from "./schema/standard-schema.js";
/** A stateful agent session with `await agent.prompt(...)`. */
export { Agent } from "./sdk/agent.js";
/** The error for an option `query()` cannot honour, and the lists of options it implements, refuses and ignores. */
export {
  IGNORED_OPTIONS,
  InvalidOptionError,
  KNOWN_OPTIONS,
  REFUSED_OPTIONS,
} from "./sdk/options-check.js";
/** The handle `query()` returns, and the user-message shape it takes in multi-turn mode. */
export type { Query, SDKUserMessageInput } from "./sdk/query.js";
// ---- Running an agent ---------------------------------------------------------------------------
/** Runs an agent and streams Claude-Agent-SDK-compatible messages; the drop-in for its `query()`. */
export { query } from "./sdk/query.js";
/** Session transcripts: stores, resume, list, fork. */
export * from "./session/index.js";
/** The `telemetry` option: OpenTelemetry GenAI spans, on when the host registered a tracer provider. */
export type { OtelTracerLike, TelemetryOption } from "./telemetry/option.js";
/**
 * Bash: runs a shell command in its own process group (timeouts kill the whole group); `createBashTool`
 * makes one whose commands run in a sandbox from `createBashSandbox`.
 */
export { type BashToolOptions, bashTool, createBashTool } from "./tools/bash.js";
/** BashOutput: reads new output of a background shell. */
export { bashOutputTool } from "./tools/bash-output.js";
/** The built-in tools by name, and how a mixed list of names and tools is resolved. */
export { builtinTools, DEFAULT_TOOL_NAMES, resolveTools } from "./tools/builtin.js";
/** What `defineTool` takes: the spec and its input schema (any Standard Schema, or `jsonSchema()`). */
export type { ShapeToolSpec, ToolInputSchema, ToolSpec } from "./tools/define-tool.js";
// ---- Tools --------------------------------------------------------------------------------------
/** Defines a tool from a zod, valibot, arktype or JSON schema; `runTool` validates and runs one call without throwing. */
export { defineTool, runTool, toJsonSchema, validateToolInput } from "./tools/define-tool.js";
/** Edit: replaces an exact string in a file, keeping line endings and BOM. */
export { editTool } from "./tools/edit.js";
/** Glob: files matching a pattern, newest first. */
export { globTool } from "./tools/glob.js";
/** Grep: ripgrep-style search, with `rg` when installed and a built-in fallback otherwise. */
export { createGrepTool, grepTool } from "./tools/grep.js";
/** KillShell: stops a background shell. */
export { killShellTool } from "./tools/kill-shell.js";
/** Read: numbered lines of a text file, or an image. */
export { readTool } from "./tools/read.js";
/** Registry types. */
export type { ToolFilter, ToolRegistry } from "./tools/registry.js";
/** A registry of tools with allow and disallow lists. */
export { createToolRegistry } from "./tools/registry.js";
/** A plain JSON Schema as a tool's input schema; a raw shape of schemas and the type it describes. */
export type { InferShape, JsonSchemaInput, StandardShape } from "./tools/tool-schema.js";
/** Wraps a plain JSON Schema for `defineTool`. */
export { jsonSchema } from "./tools/tool-schema.js";
/** The tool contract. */
export type {
  FileSnapshot,
  SideEffect,
  Tool,
  ToolContent,
  ToolContext,
  ToolResult,
  ToolSessionState,
} from "./tools/types.js";
/** Per-session tool state (files read, background shells) and its cleanup. */
export { createToolSessionState, disposeToolSessionState } from "./tools/types.js";
/** WebSearch's pluggable backend: implement `WebSearchBackend`, or configure SearXNG or Brave. */
export {
  createSearchBackend,
  type WebSearchBackend,
  WebSearchConfigError,
  type WebSearchOption,
  type WebSearchRequest,
  type WebSearchResult,
} from "./tools/web/search-backend.js";
/**
 * WebFetch: fetches a URL (HTML as markdown), answered by a small/fast model when one is given;
 * hosts on this machine or a private network only when `hostAllowed` says a rule names them.
 */
export {
  createWebFetchTool,
  type SmallModel,
  type WebFetchDetails,
  type WebFetchInput,
  type WebFetchOptions,
  webFetchTool,
} from "./tools/web/web-fetch.js";
/** WebSearch on a backend. */
export { createWebSearchTool, type WebSearchDetails, type WebSearchInput } from "./tools/web/web-search.js";
/** Write: creates or overwrites a file (an existing one must have been Read first). */
export { writeTool } from "./tools/write.js";
/** Goat's version. */
export { GOAT_VERSION } from "./version.js";
