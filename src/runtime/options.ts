/**
 * The options of a session: the Claude Agent SDK's names where they exist, plus Goat's own. `query()`
 * and `Agent` take them with the SDK's own few on top (`QueryOptions`, in src/sdk/options.ts).
 */
import type { CommandHookEntry, HookCallback, HookEvent } from "../hooks/types.js";
import type { ModelPriceInput } from "../llm/cost.js";
import type { ModelInfo } from "../llm/models.js";
import type { ProviderSpec } from "../llm/resolve.js";
import type { RetryOptions } from "../llm/retry.js";
import type { ProviderTimeouts } from "../llm/timeouts.js";
import type { ApiKeyResolver, ThinkingConfig } from "../llm/types.js";
import type { Compactor, ConvertToLlm, MessageSource, TransformContext } from "../loop/loop-config.js";
import type { StopCondition } from "../loop/stop-conditions.js";
import type { McpServerConfig } from "../mcp/types.js";
import type { CanUseTool, PermissionMode } from "../permissions/types.js";
import type { PermissionWording } from "../permissions/wording.js";
import type { SandboxSettings } from "../sandbox/settings.js";
import type { SessionStore } from "../session/types.js";
import type { PluginConfig, PluginError } from "../settings/plugins.js";
import type { SkillDefinition } from "../settings/skill-files.js";
import type { SlashCommandDefinition } from "../settings/slash-command-files.js";
import type { Tool } from "../tools/types.js";
import type { WebSearchOption } from "../tools/web/search-backend.js";
import type { OutputFormat } from "./structured-output.js";
import type { AgentDefinition } from "./subagents.js";
import type { SystemPromptOption } from "./system-prompt.js";

export type { SystemPromptOption } from "./system-prompt.js";

/**
 * One matcher group of the `hooks` option. A bare callback (or command entry) stands for a group
 * without a matcher: `PreToolUse: [check]` is `PreToolUse: [{ hooks: [check] }]`.
 */
export type HookMatcherOption =
  | { matcher?: string; hooks: Array<HookCallback | CommandHookEntry>; timeout?: number }
  | HookCallback
  | CommandHookEntry;

/** Everything a session accepts (`query()` takes these and `QueryOptions`' own). All optional. */
export interface SessionOptions {
  /** `provider/model`, e.g. `anthropic/claude-sonnet-4-5` or `openai/gpt-4.1`. Defaults to `GOAT_MODEL`. */
  model?: string;
  /** Used when the primary model is overloaded or unavailable after retries. */
  fallbackModel?: string;
  /**
   * Extra or replacement providers: `{ type: "openai", name: "litellm", baseURL }`, or a `Provider`
   * object. A single one given here also serves model ids without a known prefix.
   */
  provider?: ProviderSpec | ProviderSpec[];
  /** Extra models or price overrides for the cost ledger. */
  models?: ModelInfo[];
  /**
   * Prices of models the catalog does not know (or yours differ), in USD per million tokens, keyed by
   * `provider/model` or bare id: `{ "litellm/my-model": { input: 0.5, output: 1.5 } }`. A model with no
   * price counts as $0 (warned once), and `maxBudgetUsd` refuses to start with one.
   */
  modelPricing?: Record<string, ModelPriceInput>;
  /** Called before each request for the provider's key (a short-lived or rotated key is fetched fresh for each request). */
  getApiKey?: ApiKeyResolver;
  maxTurns?: number;
  /**
   * Ends the run with `error_max_budget_usd` once the session's cost reaches this; the answer that
   * crosses it has its tool calls answered "budget exhausted" instead of run. Needs a price for the model.
   */
  maxBudgetUsd?: number;
  /** Output token limit of each call. Defaults to the model's maximum, capped at 32,000. */
  maxTokens?: number;
  temperature?: number;
  stopSequences?: string[];
  /**
   * Extended thinking: `{ type: "enabled", budgetTokens }` (a fixed budget, ≥ 1024 and below
   * `maxTokens`), `{ type: "adaptive" }` (the model decides; a fixed budget on Claude models without
   * adaptive thinking), or `{ type: "disabled" }`. Anthropic gets it as its `thinking` field; OpenAI's
   * API as `reasoning_effort`; other OpenAI-compatible gateways in Anthropic's form, as LiteLLM takes it.
   */
  thinking?: ThinkingConfig;
  /**
   * How hard the model works: Anthropic's `output_config.effort`, OpenAI's `reasoning_effort`. Sent
   * only to models that take it (a known model that does not gets a one-time warning instead), fitted
   * to the nearest level the model takes.
   */
  effort?: "low" | "medium" | "high" | "xhigh" | "max";
  /** @deprecated Use `thinking`. A fixed thinking budget in tokens (0 or absent: off). */
  maxThinkingTokens?: number;
  /** Built-in tool names (`'Read'`, `'Bash'`, …) and tools made with `defineTool`, mixed. Default: the core tools. */
  tools?: Array<string | Tool> | { type: "preset"; preset: "claude_code" | "goat" };
  /**
   * The small/fast model (`provider/model` or an alias such as `haiku`) that answers WebFetch's
   * question about a page, as Claude Code's Haiku-class model does; its calls are priced into the
   * run's cost. Default: `GOAT_SMALL_FAST_MODEL`, else Claude Code's `ANTHROPIC_DEFAULT_HAIKU_MODEL`
   * or `ANTHROPIC_SMALL_FAST_MODEL`; with none, WebFetch returns the page's markdown instead.
   */
  smallFastModel?: string;
  /**
   * The search backend that makes the WebSearch tool available: `"searxng:http://host:8888"`,
   * `"brave"` (key from `BRAVE_API_KEY`), `{ provider: "searxng", url }`, `{ provider: "brave",
   * apiKey }`, or your own `WebSearchBackend`. Default: `GOAT_WEB_SEARCH`; with none, WebSearch is
   * not offered.
   */
  webSearch?: WebSearchOption;
  /** Permission rules that allow without asking, e.g. `Bash(npm test:*)`. */
  allowedTools?: string[];
  /** Tool names removed from the model's view, and rules that always deny. */
  disallowedTools?: string[];
  permissionMode?: PermissionMode;
  /** Required to switch to `bypassPermissions` later with `setPermissionMode` (starting in it needs nothing). */
  allowDangerouslySkipPermissions?: boolean;
  /**
   * Which settings files to read, as the CLI reads them: `user` (`$GOAT_HOME/settings.json`),
   * `project` (`<cwd>/.goat/settings.json`), `local` (`<cwd>/.goat/settings.local.json`). Default
   * none (the Claude Agent SDK's default). Their permissions, hooks, env (filling in unset variables),
   * model and MCP servers apply (with `project`, also `<cwd>/.mcp.json`'s); an option given here wins
   * over a file (`mcpServers` by server name), and lists add up.
   */
  settingSources?: Array<"user" | "project" | "local">;
  /**
   * Which memory levels are read (Claude Code's `CLAUDE.md` files, their `@path` imports and
   * `.claude/rules`): `user` (`~/.claude/CLAUDE.md`), `project` (`CLAUDE.md`, `.claude/CLAUDE.md`,
   * `AGENTS.md` of the cwd and its parents, a subfolder's when a file there is touched), `local`
   * (`CLAUDE.local.md`). Defaults to `settingSources`; without either, Goat's preset prompt reads the
   * project's and any other prompt none.
   */
  memorySources?: Array<"user" | "project" | "local">;
  /**
   * One more settings layer, above the files: the path of a settings file (relative to `cwd`), or the
   * settings as an object (`{ model, permissions: { allow }, hooks, env }`).
   */
  settings?: string | Record<string, unknown>;
  /**
   * Policy-tier settings from the program that embeds Goat (the Claude Agent SDK's option), kept
   * restrictive-only: managed `permissions.deny`/`ask` rules above every other source,
   * `disableBypassPermissionsMode`, `allowManagedPermissionRulesOnly`, `allowManagedHooksOnly` /
   * `disableAllHooks`, and sandbox settings that tighten. Keys that would widen access are dropped
   * (with a warning); a restrictive key Goat cannot enforce throws `ManagedSettingsError`. The
   * machine's managed settings file (`/etc/claude-code/managed-settings.json` on Linux) applies too,
   * joined with these: every restriction of either holds.
   */
  managedSettings?: Record<string, unknown>;
  /** Rules from settings files (`permissions: {allow, deny, ask}`), Claude Code's syntax. */
  permissionRules?: { allow?: string[]; deny?: string[]; ask?: string[] };
  /** Asked when the rules say "ask". Without it, "ask" means deny. */
  canUseTool?: CanUseTool;
  /**
   * A tool of the session (usually an MCP server's, e.g. `mcp__approver__ask`) that answers permission
   * prompts instead of `canUseTool` (give one of them): it is called with `{ tool_name, input,
   * tool_use_id }` and answers with text holding JSON, `{ "behavior": "allow", "updatedInput"?: {…} }`
   * or `{ "behavior": "deny", "message": "…" }`, as in Claude Code. Anything else denies.
   */
  permissionPromptToolName?: string;
  /**
   * Who answers permission prompts: `"host"` (default) asks `canUseTool`; `"none"` denies at once
   * whatever would prompt, and `canUseTool` is never called (the Claude Agent SDK's option).
   */
  permissionPrompts?: "host" | "none";
  /**
   * The words a denial uses to say what would have allowed the call. By default they name these
   * options (`allowedTools`, `permissionMode`, `canUseTool`); a host with its own controls (the `goat`
   * command line names its flags) gives its own.
   */
  permissionWording?: PermissionWording;
  /** Directories besides `cwd` that file tools may touch. */
  additionalDirectories?: string[];
  /**
   * The OS sandbox for Bash (the Claude Agent SDK's `sandbox` settings): with `enabled: true` each
   * command sees the filesystem read-only except `cwd`, `additionalDirectories` and a private `/tmp`,
   * has no network, and ends with its processes when the call ends (bubblewrap on Linux, sandbox-exec
   * on macOS). With `autoAllowBashIfSandboxed` (the default) sandboxed commands run without asking.
   * A sandbox that cannot start fails the command; it never runs unsandboxed instead.
   */
  sandbox?: SandboxSettings;
  /**
   * Hooks in the Claude Agent SDK's shape: `{ PreToolUse: [{ matcher: "Bash", hooks: [callback] }] }`.
   * An entry of `hooks` may also be a settings-file command hook, `{ type: "command", command }`; a
   * callback given without its group (`{ PreToolUse: [callback] }`) matches every tool.
   */
  hooks?: Partial<Record<HookEvent, HookMatcherOption[] | HookMatcherOption | HookCallback>>;
  cwd?: string;
  systemPrompt?: SystemPromptOption;
  /**
   * Structured output: the model is offered a `StructuredOutput` tool whose input schema is `schema`
   * (a JSON Schema of an object); a valid call ends the run and the result carries it as
   * `structured_output`. Invalid calls get the validation errors back; after 5 failed attempts the
   * result is `error_max_structured_output_retries`.
   */
  outputFormat?: OutputFormat;
  /**
   * Anthropic beta features to turn on (e.g. `["context-1m-2025-08-07"]`): sent as the `anthropic-beta`
   * header to providers of type `anthropic` (the built-in `anthropic/` and your own), not to
   * OpenAI-compatible ones. With the 1M-token context beta, Claude Sonnet 4 and 4.5 get a 1,000,000-token
   * window and Anthropic's long-context prices past 200,000 prompt tokens (unless `models` describes them).
   */
  betas?: string[];
  /**
   * Emit `system` messages `hook_started` and `hook_response` for every hook that runs (each event:
   * PreToolUse, PostToolUse, Stop, SessionStart …), as Claude Code does with this option.
   */
  includeHookEvents?: boolean;
  abortController?: AbortController;
  /** Aborting it ends the query, like `abortController.abort()`. */
  signal?: AbortSignal;
  /** Resume this session id with its whole history. */
  resume?: string;
  /** Resume the most recent session in `cwd`. */
  continue?: boolean;
  /** With `resume`: write to a new session id instead of appending to the old one. */
  forkSession?: boolean;
  /** With `resume`: resume from this message uuid instead of the latest. */
  resumeSessionAt?: string;
  /** Use this id for a new session. */
  sessionId?: string;
  /**
   * Keep each file Write, Edit and NotebookEdit change, per user message, so `rewindFiles()` can put
   * the files back as they were when that message arrived (Bash's changes are not tracked).
   */
  enableFileCheckpointing?: boolean;
  /** Default true: write the transcript as it happens. */
  persistSession?: boolean;
  /** Where transcripts go; default: JSONL files under `$GOAT_HOME` (or `~/.goat`). */
  sessionStore?: SessionStore;
  /** Stop predicates, checked after each step's tools ran (any true one stops). */
  stopWhen?: StopCondition | StopCondition[];
  /** Runs before every model call, before `convertToLlm` (see `LoopConfig`). */
  transformContext?: TransformContext;
  /** Turns the history into what the provider receives; default drops custom messages. */
  convertToLlm?: ConvertToLlm;
  /** Polled at each turn boundary for messages to inject. */
  getSteeringMessages?: MessageSource;
  /** Polled when the run would end normally; returned messages start another round. */
  getFollowUpMessages?: MessageSource;
  retry?: RetryOptions;
  /**
   * How long a model call may stall before it fails with a `timeout` error (retried while nothing
   * was streamed): `connectMs` (default 30 s), `firstByteMs` (60 s), `idleMs` between streamed chunks
   * (60 s). Each also reads `GOAT_CONNECT_TIMEOUT_MS`, `GOAT_FIRST_BYTE_TIMEOUT_MS`,
   * `GOAT_STREAM_IDLE_TIMEOUT_MS`; 0 turns a limit off. A slow stream whose bytes keep coming is never cut.
   */
  providerTimeouts?: ProviderTimeouts;
  /**
   * An HTTP proxy for model calls (`http://user:pass@proxy:3128`; HTTPS goes through a CONNECT tunnel),
   * or `false` for none. Default: `HTTPS_PROXY` / `HTTP_PROXY` from `env`, except `NO_PROXY` and loopback hosts.
   */
  proxy?: string | false;
  /** Most tool calls running at once (default 10). */
  toolConcurrency?: number;
  /**
   * Tool calls of one answer start in the model's order: only calls of tools without side effects
   * (`sideEffect: "none"`) run together, and each begins executing only once the call before it has
   * begun (or ended without running), however long its hooks or permission check took. Durable
   * sessions set it: their steps are numbered in the order they start, and a replay must start them
   * in the same order. Default false.
   */
  orderedToolStarts?: boolean;
  /**
   * Longest a call of a custom or MCP tool may run, in ms (default 10 minutes; 0: no limit). When it
   * is hit, the tool's signal is aborted and the model gets a time-limit error. A tool's own
   * `timeoutMs` (`defineTool`) and an MCP server's `toolTimeoutMs` win over it.
   */
  toolTimeoutMs?: number;
  /** MCP servers by name: stdio, HTTP, SSE, or in-process (`createSdkMcpServer`). Tools appear as `mcp__<server>__<tool>`. */
  mcpServers?: Record<string, McpServerConfig>;
  /** How long the first model call waits for MCP servers to connect (default 5 s); late ones join later. */
  mcpStartupTimeoutMs?: number;
  /**
   * Runs the main conversation as this one of `agents`: its prompt becomes the system prompt, its
   * `tools` the built-in tools offered, its `model` (unless `inherit`) the model, its `maxTurns` the limit.
   */
  agent?: string;
  /** Subagents the model can start with the Task tool; the general-purpose agent when empty. */
  agents?: Record<string, AgentDefinition>;
  /**
   * Custom slash commands by name (no leading `/`), as `.claude/commands/*.md` define them (read from
   * the files with `settingSources`; given here, they win by name): a prompt starting `/name args`
   * becomes the command's prompt before the model sees it (`$ARGUMENTS`, `$1`…, `@file`, `` !`cmd` ``).
   */
  slashCommands?: Record<string, SlashCommandDefinition>;
  /**
   * Agent Skills by name, as `.claude/skills/<name>/SKILL.md` define them (read from the files with
   * `settingSources`; given here, they win by name). The model sees each one's name and description
   * in the Skill tool's description and reads the body by calling `Skill({ skill: name })`.
   */
  skillDefinitions?: Record<string, SkillDefinition>;
  /**
   * Claude Code plugins to load, as the Claude Agent SDK gives them (`[{ type: "local", path }]`; the
   * `goat` command's `--plugin-dir`): each folder's commands (`/<plugin>:<name>`), agents and skills
   * (`<plugin>:<name>`), hooks and MCP servers join the session's. Read once when the session starts.
   */
  plugins?: PluginConfig[];
  /**
   * The plugins already read (set when `plugins` is loaded; `system/init.plugins` and
   * `plugin_errors` list them). Given by a caller that read the plugins itself, such as the CLI.
   */
  loadedPlugins?: {
    plugins: Array<{ name: string; path: string; version?: string }>;
    errors: PluginError[];
  };
  /**
   * The Claude Agent SDK's filter of the skills offered: `"all"` (the default) or the names to keep.
   * Hidden skills are left out of the listing and refused by the Skill tool.
   */
  skills?: string[] | "all";
  /** Custom summarizer for compaction. */
  compactor?: Compactor;
  /** Write a trace of requests, responses and decisions to stderr (or to `debugFile`). */
  debug?: boolean;
  debugFile?: string;
  /**
   * The session's environment (default `process.env`): providers read their keys, base URLs, proxy
   * and timeout variables from it; Bash commands, command hooks and stdio MCP servers run with it.
   */
  env?: Record<string, string | undefined>;
}
