/**
 * The host's `initialize` request: the fields that shape the session (hooks, system prompt, agents,
 * structured output, in-process MCP servers with their manifests, and what the SDK can send over stdin
 * instead of argv: MCP servers, disallowed tools, the `settings` layer, managed settings, plugins)
 * applied to the options `query()` is created with, and Claude Code's answer filled with what Goat offers (the
 * same agents, tools and models `system/init` reports) and the `*_applied` confirmations the SDK
 * requires for the stdin-delivered fields.
 */

import {
  accountOf,
  createModelCatalog,
  defaultModel,
  type SupportedModel,
  supportedModels,
} from "../../llm/index.js";
import {
  offeredCommands as commandsOffered,
  GENERAL_PURPOSE_AGENT,
  type SlashCommand,
  withPlugins,
} from "../../runtime/index.js";
import type { PluginConfig } from "../../settings/index.js";
import { parseAgentsFlag } from "../agents.js";
import { UsageError } from "../args.js";
import { McpConfigError, takeHostServers } from "../mcp-servers.js";
import type { CliQueryOptions } from "../sdk-options.js";
import { loadSettings } from "../settings.js";
import { hostHooks } from "./control-callbacks.js";
import type { HostMcpServers } from "./control-mcp.js";
import { manifestOf } from "./control-mcp.js";
import { type ControlChannel, type ControlRequestBody, isRecord } from "./control-protocol.js";

/** What applying `initialize` needs. */
export interface InitializeContext {
  options: CliQueryOptions;
  channel: ControlChannel;
  hostMcp: HostMcpServers;
  warn: (text: string) => void;
}

/** Which of the fields a host may require confirmation for were applied (Claude Code's `*_applied`). */
export interface AppliedFields {
  mcpServers: boolean;
  disallowedTools: boolean;
  settings: boolean;
  managedSettings: boolean;
  /** Plugins were sent (`pluginDelivery: "initialize"`) and every one loaded. */
  plugins: boolean;
}

/**
 * Fields Goat has no counterpart for. Each one present is reported once on stderr: the session still
 * runs, without it.
 */
const IGNORED_FIELDS = [
  "toolAliases",
  "planModeInstructions",
  "appendSubagentSystemPrompt",
  "codeRunningMcpTools",
  "promptSuggestions",
  "agentProgressSummaries",
  "webSearchIsolationExemptMcpServers",
];

/**
 * Applies the request to `ctx.options`. Everything is checked before anything changes, so an error
 * answer leaves the options as they were.
 */
export async function applyInitialize(
  request: ControlRequestBody,
  ctx: InitializeContext,
): Promise<AppliedFields> {
  const { options, warn } = ctx;
  const agents = isRecord(request.agents) ? parseAgentsFlag(JSON.stringify(request.agents)) : undefined;
  const servers = isRecord(request.mcpServers) ? await parseServers(request.mcpServers, ctx) : undefined;
  const disallowed = Array.isArray(request.disallowedTools)
    ? request.disallowedTools.filter((t): t is string => typeof t === "string")
    : undefined;
  // The settings layer and the policy settings are checked here, so a bad one is this answer's error.
  const settings = isRecord(request.settings) ? request.settings : undefined;
  if (settings) loadSettings([], new Set(), settings, "initialize.settings");
  const plugins = pluginConfigs(request.plugins);
  const managed = isRecord(request.managedSettings) ? request.managedSettings : undefined;
  if (managed) {
    const { readManagedSettings } = await import("../../settings/index.js");
    readManagedSettings(managed);
  }

  if (isRecord(request.hooks)) options.hooks = hostHooks(ctx.channel, request.hooks, options.hooks, warn);
  if (agents) options.agents = { ...options.agents, ...agents };
  applySystemPrompt(request, options);
  if (isRecord(request.jsonSchema)) {
    options.outputFormat = { type: "json_schema", schema: request.jsonSchema };
  }
  const hostNames = Array.isArray(request.sdkMcpServers)
    ? request.sdkMcpServers.filter((n): n is string => typeof n === "string" && n !== "")
    : [];
  if (servers || hostNames.length > 0) {
    const mcpServers = { ...options.mcpServers, ...servers };
    for (const name of hostNames) {
      mcpServers[name] = ctx.hostMcp.config(name, manifestOf(request.sdkMcpServerManifests, name));
    }
    options.mcpServers = mcpServers;
  }
  if (disallowed) options.disallowedTools = [...(options.disallowedTools ?? []), ...disallowed];
  // query() applies it as it applies --settings JSON: a layer above the files, below the options.
  if (settings) options.settings = settings;
  if (managed) options.managedSettings = managed;
  // The Claude Agent SDK's `skills` filter ("all" or names) over the skills of the folders.
  if (request.skills === "all") options.skills = "all";
  else if (Array.isArray(request.skills)) {
    options.skills = request.skills.filter((n): n is string => typeof n === "string");
  }
  const pluginsLoaded = plugins ? applyPlugins(plugins, options, warn) : false;
  const ignored = IGNORED_FIELDS.filter((k) => isSet(request[k]));
  if (ignored.length > 0) warn(`initialize: ${ignored.join(", ")} not supported by Goat; ignored`);
  return {
    mcpServers: servers !== undefined,
    disallowedTools: disallowed !== undefined,
    settings: settings !== undefined,
    managedSettings: managed !== undefined,
    plugins: pluginsLoaded,
  };
}

/**
 * `initialize.plugins` (the SDK's `plugins` with `pluginDelivery: "initialize"`): the same
 * `[{ type: "local", path, skipMcpDiscovery? }]` list `--plugin-dir` carries. Throws for anything
 * else, so a plugin the host asked for never goes missing unsaid.
 */
function pluginConfigs(value: unknown): PluginConfig[] | undefined {
  if (value === undefined || value === null) return undefined;
  const bad = () =>
    new UsageError(
      'initialize: plugins must be an array of { type: "local", path } (other plugin types are not supported)',
    );
  if (!Array.isArray(value)) throw bad();
  return value.map((entry) => {
    if (!isRecord(entry) || entry.type !== "local" || typeof entry.path !== "string" || entry.path === "")
      throw bad();
    return {
      type: "local",
      path: entry.path,
      ...(entry.skipMcpDiscovery === true ? { skipMcpDiscovery: true } : {}),
    };
  });
}

/**
 * Reads the plugins and adds their parts to the options as `--plugin-dir` does (commands, agents and
 * skills under the plugin's name, hooks, MCP servers). Returns whether every one loaded.
 */
function applyPlugins(
  plugins: PluginConfig[],
  options: CliQueryOptions,
  warn: (text: string) => void,
): boolean {
  if (plugins.length === 0) return true;
  const errorsBefore = options.loadedPlugins?.errors.length ?? 0;
  const { plugins: _, ...rest } = withPlugins({ ...options, plugins }, warn) as CliQueryOptions;
  Object.assign(options, rest);
  return (options.loadedPlugins?.errors.length ?? 0) === errorsBefore;
}

/** The system prompt fields: `[""]` (the SDK's "none chosen") keeps Goat's prompt. */
function applySystemPrompt(request: ControlRequestBody, options: CliQueryOptions): void {
  const prompt = systemPromptText(request.systemPrompt);
  // An empty prompt would leave the model without the tool guidance, so only a non-empty one replaces Goat's.
  if (prompt) options.systemPrompt = prompt;
  const append = typeof request.appendSystemPrompt === "string" ? request.appendSystemPrompt : "";
  if (!append) return;
  const current = options.systemPrompt;
  if (typeof current === "string") options.systemPrompt = `${current}\n\n${append}`;
  else if (current)
    options.systemPrompt = { ...current, append: [current.append, append].filter(Boolean).join("\n\n") };
  else options.systemPrompt = { type: "preset", preset: "goat", append };
}

/** `initialize.mcpServers` (`mcpServersDelivery: "initialize"`): validated like `--mcp-config`. */
async function parseServers(value: Record<string, unknown>, ctx: InitializeContext) {
  const { parseMcpConfig } = await import("../../mcp/index.js");
  const { rest, names } = takeHostServers(value);
  const parsed = parseMcpConfig(rest, ctx.options.env ?? process.env);
  const [bad] = Object.entries(parsed.errors);
  if (bad) throw new McpConfigError(`initialize: MCP server "${bad[0]}": ${bad[1]}`);
  const servers = { ...parsed.servers };
  for (const name of names) servers[name] = ctx.hostMcp.config(name);
  return servers;
}

function systemPromptText(value: unknown): string | undefined {
  if (typeof value === "string") return value.trim() === "" ? undefined : value;
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) {
    const text = value.filter((v) => v.trim() !== "").join("\n\n");
    return text === "" ? undefined : text;
  }
  return undefined;
}

function isSet(value: unknown): boolean {
  if (isRecord(value)) return Object.keys(value).length > 0;
  if (Array.isArray(value)) return value.length > 0;
  return value !== undefined && value !== null && value !== false && value !== "";
}

/** Fields of a late `initialize` (the prompt came on the command line) that can no longer apply. */
export function lateInitializeFields(request: ControlRequestBody): string[] {
  return [
    "hooks",
    "systemPrompt",
    "appendSystemPrompt",
    "agents",
    "sdkMcpServers",
    "mcpServers",
    "settings",
    "managedSettings",
    "plugins",
  ].filter((k) => {
    const v = request[k];
    return isRecord(v) ? Object.keys(v).length > 0 : Array.isArray(v) ? v.some(Boolean) : Boolean(v);
  });
}

/** The subagents the Task tool offers with these options (what `system/init` lists under `agents`). */
export function offeredAgents(
  options: CliQueryOptions,
): Array<{ name: string; description: string; model?: string }> {
  const tools = Array.isArray(options.tools) ? options.tools : undefined;
  const defined = options.agents ?? {};
  const taskOn =
    (tools === undefined || tools.includes("Task") || Object.keys(defined).length > 0) &&
    !(options.disallowedTools ?? []).includes("Task");
  if (!taskOn) return [];
  const agents = Object.keys(defined).length > 0 ? defined : { "general-purpose": GENERAL_PURPOSE_AGENT };
  return Object.entries(agents).map(([name, a]) => ({
    name,
    description: a.description,
    ...(a.model !== undefined ? { model: a.model } : {}),
  }));
}

/** The slash commands a prompt may start with (what `system/init` lists under `slash_commands`). */
export function offeredCommands(options: CliQueryOptions): SlashCommand[] {
  return commandsOffered(options.slashCommands);
}

/**
 * The skills the session offers, in the SDK's `SlashCommand` shape (what `reload_skills` answers):
 * the skill files and `skillDefinitions`, through the `skills` filter; none when Skill is disallowed.
 */
export function offeredSkills(options: CliQueryOptions): SlashCommand[] {
  if ((options.disallowedTools ?? []).includes("Skill")) return [];
  const filter = options.skills;
  return Object.entries(options.skillDefinitions ?? {})
    .filter(([name]) => filter === undefined || filter === "all" || filter.includes(name))
    .map(([name, skill]) => ({ name, description: skill.description, argumentHint: "" }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Claude Code's initialize answer, filled with what Goat offers. */
export function initializeResponse(
  options: CliQueryOptions,
  applied: AppliedFields | undefined,
  protocolVersion: string,
): Record<string, unknown> {
  return {
    commands: offeredCommands(options),
    agents: offeredAgents(options),
    output_style: "default",
    available_output_styles: ["default"],
    models: offeredModels(options),
    account: accountFor(options),
    claude_code_version: protocolVersion,
    current_permission_mode: options.permissionMode ?? "default",
    ...(applied?.mcpServers ? { mcp_servers_applied: true } : {}),
    ...(applied?.disallowedTools ? { disallowed_tools_applied: true } : {}),
    ...(applied?.settings ? { settings_applied: true } : {}),
    ...(applied?.managedSettings ? { managed_settings_applied: true } : {}),
    ...(applied?.plugins ? { plugins_applied: true } : {}),
    pid: process.pid,
  };
}

/**
 * The account `system/init` will report (where the model's key comes from, which Anthropic API), for
 * the SDK's `accountInfo()`, which reads it from this answer. Empty when the model names a provider
 * nobody configured (the session then fails at start with the reason).
 */
function accountFor(options: CliQueryOptions): Record<string, unknown> {
  const env = options.env ?? process.env;
  const providers = options.provider === undefined ? [] : [options.provider].flat();
  try {
    return { ...accountOf(options.model ?? defaultModel(env), { providers, env }) };
  } catch {
    return {};
  }
}

/** The catalog's models, and the session's own first when the catalog does not know it (a gateway's). */
function offeredModels(options: CliQueryOptions): SupportedModel[] {
  const models = supportedModels(createModelCatalog(options.models ?? []));
  const model = options.model;
  if (model !== undefined && !models.some((m) => m.value === model || m.value.endsWith(`/${model}`))) {
    models.unshift({ value: model, displayName: model, description: "the session's model" });
  }
  return models;
}
