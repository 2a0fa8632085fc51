/**
 * Turns the command line, the settings files and the environment into `query()` options, and checks
 * up front that the chosen model's provider has a key, so a missing key is one clear line rather than
 * an HTTP 401 deep in a run.
 */
import { readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { PermissionModeName } from "../index.js";
import { KNOWN_OPTIONS } from "../index.js";
import { claudeCloud, expandModelAlias } from "../llm/index.js";
import { withProjectDescription } from "../runtime/index.js";
import { readFlagSettingsFile, readProjectDescription } from "../settings/index.js";
import { builtinTools } from "../tools/index.js";
import { parseAgentsFlag } from "./agents.js";
import { type CliArgs, UsageError } from "./args.js";
import { collectMcpSources, McpConfigError, type McpSource, resolveMcpServers } from "./mcp-servers.js";
import { cliPermissionWording } from "./permission-wording.js";
import type { CliQueryOptions, ThinkingOption } from "./sdk-options.js";
import { type CliSettings, goatHomeDir, inlineSettings, mergeSettings } from "./settings.js";
import type { ProjectTrust } from "./trust/settle.js";

export { settleCliTrust } from "./trust/settle.js";

/** What a run of the CLI needs besides the prompt. */
export interface CliConfig {
  options: CliQueryOptions;
  settings: CliSettings;
  cwd: string;
  /** The model the CLI asked for (undefined: the runtime's default). */
  model?: string;
  /** Where MCP servers come from; `withMcpServers` turns them into `options.mcpServers`. */
  mcpSources: McpSource[];
  /** Servers in the SDK host's process (`{"type":"sdk"}` in `--mcp-config`), set by `withMcpServers`. */
  hostMcpServers?: string[];
}

const MODES: readonly string[] = ["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"];

/**
 * Loads settings (applying their `env` to `env`, which is `process.env` in the program) and builds the
 * options. `trust` says how much of the folder's own configuration applies (`trust/settle.ts`; all of
 * it when absent). Throws `UsageError` or `SettingsError` with a one-line message.
 */
export function buildConfig(
  args: CliArgs,
  env: Record<string, string | undefined>,
  trust?: ProjectTrust,
): CliConfig {
  const cwd = resolve(args.cwd ?? process.cwd());
  if (args.cwd !== undefined && !isDirectory(cwd)) {
    throw new UsageError(`--cwd ${args.cwd} is not a directory; give an existing folder`);
  }
  // Every configuration file of the levels read, read once (when trust was settled, for its question).
  const description =
    trust?.description ??
    readProjectDescription({
      cwd,
      env,
      sources: args.settingSources ?? ["user", "project", "local"],
      plugins: args.plugins,
    });
  // --settings is a file, or inline JSON as the Agent SDKs pass it (with the host's sandbox merged in).
  const inline = inlineSettings(args.settings);
  const settingsFile = inline || args.settings === undefined ? undefined : resolve(args.settings);
  const flagFile = settingsFile ? [readFlagSettingsFile(settingsFile, env)] : [];
  const settings = mergeSettings([...description.settings, ...flagFile], {
    inline,
    inlineOrigin: "--settings JSON",
    // A file the user names with --settings is theirs to apply, even one inside the project.
    restricted: new Set(trust?.restrictedFiles.filter((f) => f !== settingsFile)),
  });
  // Settings `env` fills in the environment; variables the user exported themselves win.
  for (const [name, value] of Object.entries(settings.env)) if (env[name] === undefined) env[name] = value;

  const mode = args.permissionMode ?? settings.permissions.defaultMode;
  if (mode !== undefined && !MODES.includes(mode)) {
    throw new UsageError(`permissions.defaultMode must be one of ${MODES.join(", ")} (got "${mode}")`);
  }
  const model = args.model ?? env.GOAT_MODEL ?? settings.model;
  const systemPrompt = buildSystemPrompt(args);

  const options: CliQueryOptions = {
    cwd,
    model,
    fallbackModel: args.fallbackModel,
    smallFastModel: args.smallFastModel,
    webSearch: args.webSearch,
    maxTurns: args.maxTurns,
    maxBudgetUsd: args.maxBudgetUsd,
    modelPricing: Object.keys(settings.modelPricing).length > 0 ? settings.modelPricing : undefined,
    permissionMode: mode as PermissionModeName | undefined,
    allowedTools: args.allowedTools,
    disallowedTools: args.disallowedTools,
    permissionRules: {
      allow: settings.permissions.allow,
      deny: settings.permissions.deny,
      ask: settings.permissions.ask,
    },
    hooks: Object.keys(settings.hooks).length > 0 ? settings.hooks : undefined,
    additionalDirectories: [...settings.permissions.additionalDirectories, ...args.addDirs].map((d) =>
      resolve(cwd, d),
    ),
    sandbox:
      args.sandbox || settings.sandbox
        ? { ...settings.sandbox, ...(args.sandbox ? { enabled: true } : {}) }
        : undefined,
    systemPrompt,
    memorySources: memorySources(args),
    includePartialMessages: args.includePartialMessages,
    resume: args.resume,
    continue: args.continue || undefined,
    forkSession: args.forkSession || undefined,
    persistSession: args.persistSession,
    debug: args.debug || undefined,
    debugFile: args.debugFile,
    sessionId: args.sessionId,
    resumeSessionAt: args.resumeSessionAt,
    allowDangerouslySkipPermissions: args.allowDangerouslySkipPermissions || undefined,
    tools: toolsOption(args, env),
    maxThinkingTokens: args.maxThinkingTokens,
    thinking: thinkingOption(args),
    effort: args.effort ?? settings.effortLevel,
    outputFormat: args.jsonSchema ? { type: "json_schema", schema: args.jsonSchema } : undefined,
    permissionPromptToolName: args.permissionPromptToolName,
    betas: args.betas.length > 0 ? args.betas : undefined,
    includeHookEvents: args.includeHookEvents || undefined,
    managedSettings: args.managedSettings,
    env,
  };
  // The TypeScript SDK's enableFileCheckpointing reaches the CLI as this variable. A runtime without
  // checkpoints refuses the option; under an SDK that would end the session before any output, so it
  // is reported instead (rewind_files then answers canRewind: false).
  if (env.CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING === "true") {
    if (KNOWN_OPTIONS.includes("enableFileCheckpointing")) options.enableFileCheckpointing = true;
    else args.ignoredFlags.push("CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING (file checkpoints)");
  }
  // An Agent SDK host (stream-json input) configured Goat with query() options: its denials name them.
  if (args.inputFormat !== "stream-json") options.permissionWording = cliPermissionWording(args);
  if (args.agents !== undefined) options.agents = parseAgentsFlag(args.agents);
  const withDefinitions = withProjectDescription(
    options,
    description,
    trust?.readProjectDefinitions !== false,
    (message) => settings.warnings.push(message),
  ) as CliQueryOptions;
  const mcpSources = collectMcpSources({
    cwd,
    settings,
    userSettingsFile: join(goatHomeDir(env), "settings.json"),
    readProjectFile:
      (args.settingSources === undefined || args.settingSources.includes("project")) &&
      trust?.readMcpjson !== false,
    keepProjectServer: trust?.keepMcpjsonServer,
    projectFile: description.mcpjson,
    warn: (message) => settings.warnings.push(message),
    mcpConfig: args.mcpConfig,
    strict: args.strictMcpConfig,
  });
  return { options: withDefinitions, settings, cwd, model, mcpSources };
}

/**
 * Validates the MCP sources and sets `options.mcpServers` (async: the parser is loaded only when
 * there are servers). Rejects with `McpConfigError` naming the file; the program exits 1.
 */
export async function withMcpServers(config: CliConfig, args: CliArgs): Promise<CliConfig> {
  const env = config.options.env ?? process.env;
  const resolved = await resolveMcpServers(config.mcpSources, env);
  if (resolved === undefined) return config;
  if (resolved.hostServers.length > 0 && args.inputFormat !== "stream-json") {
    throw new McpConfigError(
      `MCP server ${resolved.hostServers.map((n) => `"${n}"`).join(", ")} has type "sdk": it runs in the Agent SDK's process and is reached over --input-format stream-json`,
    );
  }
  const mcpServers = Object.keys(resolved.servers).length > 0 ? resolved.servers : undefined;
  const mcpStartupTimeoutMs = millisecondsFrom(env.MCP_TIMEOUT);
  return {
    ...config,
    // A plugin's servers (read with the rest of the configuration) keep their place beside these.
    options: mcpServers
      ? {
          ...config.options,
          mcpServers: { ...config.options.mcpServers, ...mcpServers },
          ...(mcpStartupTimeoutMs === undefined ? {} : { mcpStartupTimeoutMs }),
        }
      : config.options,
    hostMcpServers: resolved.hostServers,
  };
}

/**
 * Claude Code's `MCP_TIMEOUT`: how long, in milliseconds, the first model call waits for MCP servers
 * to connect (Goat's `mcpStartupTimeoutMs`, default 5 s). Anything but a number ≥ 0 is ignored.
 */
function millisecondsFrom(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const ms = Number(value);
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/**
 * The prompt flags: `--system-prompt ""` (what the Python SDK sends when its caller chose none) keeps
 * Goat's. A prompt of one's own replaces Goat's; as in Claude Code (where CLAUDE.md is context, not
 * part of the system prompt) the memory files still follow it (`memorySources`, read by the runtime).
 */
function buildSystemPrompt(args: CliArgs): CliQueryOptions["systemPrompt"] {
  let custom = args.systemPrompt;
  if (args.systemPromptFile !== undefined) {
    try {
      custom = readFileSync(resolve(args.systemPromptFile), "utf8");
    } catch (error) {
      throw new UsageError(`--system-prompt-file ${args.systemPromptFile}: ${(error as Error).message}`);
    }
  }
  if (custom === undefined || custom.trim() === "") {
    return { type: "preset", preset: "goat", append: args.appendSystemPrompt };
  }
  return [custom, args.appendSystemPrompt].filter((p) => p !== undefined && p !== "").join("\n\n");
}

/**
 * The memory levels the session reads: those `--setting-sources` names, all of them without it (as
 * Claude Code reads them), none with `--setting-sources ""` (what the Agent SDKs pass by default).
 */
function memorySources(args: CliArgs): CliQueryOptions["memorySources"] {
  const levels = ["user", "project", "local"] as const;
  if (args.settingSources === undefined) return [...levels];
  return levels.filter((level) => args.settingSources?.includes(level));
}

/**
 * `--tools`: the base tool set. Names Goat has no tool for (Claude Code's Skill, say) are an error for
 * a person, and left out with a warning under an SDK, where the host's list was written for Claude;
 * so is WebSearch when no search backend is configured.
 */
function toolsOption(args: CliArgs, env: Record<string, string | undefined>): CliQueryOptions["tools"] {
  if (args.tools === undefined || args.tools === "default") return undefined;
  const known = new Set([...Object.keys(builtinTools), "Task"]);
  if (args.inputFormat === "stream-json" && !args.webSearch && !env.GOAT_WEB_SEARCH?.trim()) {
    known.delete("WebSearch");
  }
  const missing = args.tools.filter((t) => !known.has(t));
  if (missing.length > 0 && args.inputFormat !== "stream-json") {
    throw new UsageError(
      `--tools: Goat has no tool ${missing.join(", ")}; its tools are ${[...known].join(", ")}`,
    );
  }
  const unconfigured = missing.filter((t) => t === "WebSearch");
  const unknown = missing.filter((t) => t !== "WebSearch");
  if (unknown.length > 0) args.ignoredFlags.push(`--tools ${unknown.join(",")} (no such Goat tool)`);
  if (unconfigured.length > 0)
    args.ignoredFlags.push("--tools WebSearch (no search backend: see --web-search)");
  return args.tools.filter((t) => known.has(t));
}

/** `--thinking`, `--max-thinking-tokens` and `--thinking-display` as Claude's `thinking` option. */
function thinkingOption(args: CliArgs): ThinkingOption | undefined {
  const display = args.thinkingDisplay ? { display: args.thinkingDisplay } : {};
  if (args.maxThinkingTokens !== undefined) {
    return args.maxThinkingTokens > 0
      ? { type: "enabled", budgetTokens: args.maxThinkingTokens, ...display }
      : { type: "disabled" };
  }
  if (args.thinking === undefined) return undefined;
  // `--thinking enabled` names no budget: the model decides how much to think, as with adaptive.
  if (args.thinking === "disabled") return { type: "disabled" };
  return { type: "adaptive", ...display };
}

/**
 * `--agent NAME`: the main thread runs as that subagent (its prompt, its tools, its model unless
 * `inherit`). Applied once the agents are known, after the host's `initialize`.
 */
export function withMainAgent(options: CliQueryOptions, name: string | undefined): CliQueryOptions {
  if (name === undefined) return options;
  const agent = options.agents?.[name];
  if (!agent) {
    const names = Object.keys(options.agents ?? {});
    throw new UsageError(
      `--agent ${name}: no such agent${names.length > 0 ? ` (defined: ${names.join(", ")})` : "; define it with --agents"}`,
    );
  }
  return {
    ...options,
    systemPrompt: agent.prompt,
    tools: agent.tools ?? options.tools,
    model: agent.model !== undefined && agent.model !== "inherit" ? agent.model : options.model,
    maxTurns: options.maxTurns ?? agent.maxTurns,
  };
}

/** The provider a model id goes to: its `provider/` prefix, or a guess from a bare id. */
function providerOfModel(model: string): string | undefined {
  const slash = model.indexOf("/");
  if (slash > 0) return model.slice(0, slash);
  if (/^claude-/i.test(model)) return "anthropic";
  if (/^(?:gpt-|chatgpt-|o\d(?:-|$)|codex-)/i.test(model)) return "openai";
  if (/^gemini-/i.test(model)) return "gemini";
  return undefined;
}

/** Each provider's key variable and, where a keyless local gateway can stand in, its base URL variable. */
const KEY_VARS: Record<string, { key: string; baseURL?: string; token?: string }> = {
  anthropic: { key: "ANTHROPIC_API_KEY", baseURL: "ANTHROPIC_BASE_URL", token: "ANTHROPIC_AUTH_TOKEN" },
  openai: { key: "OPENAI_API_KEY", baseURL: "OPENAI_BASE_URL" },
  "openai-responses": { key: "OPENAI_API_KEY", baseURL: "OPENAI_BASE_URL" },
  // Azure's providers always send a credential (api-key or an Entra ID token): no keyless endpoint.
  azure: { key: "AZURE_OPENAI_API_KEY" },
  "azure-responses": { key: "AZURE_OPENAI_API_KEY" },
  // One Foundry resource serves both APIs, so the Azure OpenAI key counts too.
  "azure-foundry": { key: "AZURE_AI_API_KEY", token: "AZURE_OPENAI_API_KEY" },
  gemini: { key: "GEMINI_API_KEY", baseURL: "GOOGLE_GEMINI_BASE_URL", token: "GOOGLE_API_KEY" },
};

/**
 * Returns a message naming the variables to set when the model's provider has no key, else undefined.
 * A key is optional when the provider's base URL points at this machine (localhost, 127.x, ::1): a
 * local gateway or model server often needs none. Providers other than the built-in ones are not checked.
 */
export function missingKeyMessage(
  model: string | undefined,
  env: Record<string, string | undefined>,
): string | undefined {
  const has = (name: string) => (env[name] ?? "").trim() !== "";
  const local = (name: string) => isLoopbackUrl(env[name]);
  // Claude Code's cloud switches send Claude to Bedrock or Vertex, whose credentials (a chain of
  // files, metadata servers, tokens) are resolved at the first call, which names what is missing.
  if (claudeCloud(env) && (model === undefined || providerOfModel(expandModelAlias(model)) === "anthropic"))
    return undefined;
  if (model === undefined) {
    // The runtime's default: Anthropic, or OpenAI or Gemini when only its key is set.
    if (
      has("ANTHROPIC_API_KEY") ||
      has("ANTHROPIC_AUTH_TOKEN") ||
      has("OPENAI_API_KEY") ||
      has("GEMINI_API_KEY") ||
      has("GOOGLE_API_KEY") ||
      local("ANTHROPIC_BASE_URL")
    )
      return undefined;
    return "No API key configured: set ANTHROPIC_API_KEY (or OPENAI_API_KEY with --model openai/<model>), or ANTHROPIC_BASE_URL / OPENAI_BASE_URL to a local gateway.";
  }
  const provider = providerOfModel(model);
  const vars = provider ? KEY_VARS[provider] : undefined;
  if (!vars || has(vars.key) || (vars.token !== undefined && has(vars.token))) return undefined;
  if (vars.baseURL === undefined) return `No API key configured for ${model}: set ${vars.key}.`;
  if (local(vars.baseURL)) return undefined;
  return `No API key configured for ${model}: set ${vars.key} (or ${vars.baseURL} to a local gateway).`;
}

/** Whether a URL's host is this machine. */
function isLoopbackUrl(url: string | undefined): boolean {
  if (!url) return false;
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
    return host === "localhost" || host === "::1" || /^127\./.test(host);
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * `--resume` with an id no session has, or, in the interactive `goat`, `--continue` in a folder with
 * no earlier session: one line saying so (Claude Code's words) before anything starts, instead of an
 * error inside a session. In print mode and under the Agent SDKs `--continue` with nothing to
 * continue starts a new session, as Claude Code does (a host passing `continue: true` on every call
 * must be able to make the first one).
 */
export async function assertSessionToResume(
  args: CliArgs,
  config: CliConfig,
  interactive: boolean,
): Promise<void> {
  if (!(args.continue && interactive) && args.resume === undefined) return;
  const { createJsonlSessionStore, mostRecentSession } = await import("../session/index.js");
  const env = config.options.env ?? process.env;
  const home = env.GOAT_HOME && env.GOAT_HOME.length > 0 ? env.GOAT_HOME : undefined;
  const store = createJsonlSessionStore({ home, onWarning: () => {} });
  if (args.resume !== undefined) {
    let path: string | undefined;
    try {
      path = await store.pathOf(args.resume);
    } catch (error) {
      throw new UsageError(`--resume: ${(error as Error).message}`);
    }
    if (path === undefined) await resumeByPrefix(args, config, goatHomeDir(env));
    return;
  }
  if (await mostRecentSession(config.cwd, store)) return;
  throw new UsageError(`No conversation found to continue in ${config.cwd}: start one without --continue`);
}

/** `--resume` with part of an id: the one session it names is resumed; none or several is an error. */
async function resumeByPrefix(args: CliArgs, config: CliConfig, home: string): Promise<void> {
  const prefix = args.resume ?? "";
  const { matchSessionPrefix } = await import("./session-prefix.js");
  const match = await matchSessionPrefix(home, prefix);
  if (match.kind === "none") {
    throw new UsageError(
      `No conversation found with session ID: ${prefix} (goat sessions lists this folder's sessions)`,
    );
  }
  if (match.kind === "many") {
    const shown = match.sessionIds.slice(0, 10);
    const more = match.sessionIds.length - shown.length;
    throw new UsageError(
      `--resume ${prefix} matches ${match.sessionIds.length} sessions: ${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""}. Give more of the id.`,
    );
  }
  args.resume = match.sessionId;
  config.options.resume = match.sessionId;
}
