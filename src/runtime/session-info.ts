/**
 * What a session tells its host about itself, shaped as the Claude Agent SDK's `Query` methods answer:
 * the agents the Task tool offers (the same list `system/init` names), the models the catalog knows,
 * the account (which provider serves the model and where its key comes from), and how full the
 * context window is, by category.
 */

import type { AccountInfo } from "../llm/account.js";
import type { SupportedModel } from "../llm/model-list.js";
import { estimateMessageTokens, type LoopSession } from "../loop/context.js";
import type { SlashCommandDefinition } from "../settings/slash-command-files.js";
import type { Tool } from "../tools/types.js";
import { type AgentDefinition, GENERAL_PURPOSE_AGENT } from "./subagents.js";

/** A subagent the Task tool offers (the SDK's `AgentInfo`). */
export interface AgentInfo {
  name: string;
  description: string;
  /** `inherit` or a model id or alias; absent means the parent's model. */
  model?: string;
}

/** A slash command (the SDK's `SlashCommand`): a custom command a prompt may start with. */
export interface SlashCommand {
  /** Its name, without the leading `/`. */
  name: string;
  description: string;
  /** The arguments it takes (`[issue-number]`); empty when it says none. */
  argumentHint: string;
}

/** The built-in commands a `query()` prompt may start with (`runtime/builtin-commands.ts` runs them). */
export const BUILTIN_COMMANDS: readonly SlashCommand[] = [
  {
    name: "compact",
    description: "Summarise the conversation to free context",
    argumentHint: "[instructions]",
  },
];

/** The session's commands as the SDK lists them: the built-ins, then the custom ones by name. */
export function offeredCommands(
  commands: Record<string, SlashCommandDefinition> | undefined,
): SlashCommand[] {
  const custom = Object.entries(commands ?? {})
    // A built-in's name is the built-in's: a prompt `/compact` compacts, whatever a file defines.
    .filter(([name]) => !BUILTIN_COMMANDS.some((b) => b.name === name))
    .map(([name, c]) => ({ name, description: c.description, argumentHint: c.argumentHint ?? "" }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return [...BUILTIN_COMMANDS, ...custom];
}

export { type SupportedModel, supportedModels } from "../llm/model-list.js";
export type { AccountInfo };

/** One row of the context usage breakdown. */
export interface ContextCategory {
  id: "system_prompt" | "system_tools" | "mcp_tools" | "messages" | "autocompact_buffer" | "free_space";
  name: string;
  tokens: number;
  color: string;
  kind: "used" | "free" | "buffer";
}

/** How full the context window is (the SDK's `getContextUsage()` answer, without its grid drawing). */
export interface ContextUsage {
  categories: ContextCategory[];
  /** Tokens used (system prompt, tools, messages). */
  totalTokens: number;
  /** The model's context window. */
  maxTokens: number;
  rawMaxTokens: number;
  /** `totalTokens` as a percentage of `maxTokens`. */
  percentage: number;
  gridRows: [];
  model: string;
  memoryFiles: [];
  mcpTools: Array<{ name: string; serverName: string; tokens: number }>;
  agents: Array<{ agentType: string; source: string; tokens: number }>;
  /** Where automatic compaction starts (tokens), when the window is known. */
  autoCompactThreshold?: number;
  isAutoCompactEnabled: boolean;
  /** What the provider reported for the last call, when there was one. */
  apiUsage: {
    input_tokens: number;
    output_tokens: number;
    cache_creation_input_tokens: number;
    cache_read_input_tokens: number;
  } | null;
}

/** The initialize answer of the Claude Agent SDK (`initializationResult()`). */
export interface InitializationResult {
  commands: SlashCommand[];
  agents: AgentInfo[];
  output_style: string;
  available_output_styles: string[];
  models: SupportedModel[];
  account: AccountInfo;
  claude_code_version: string;
}

/** The agents the Task tool offers: the defined ones, else the general-purpose one; none without Task. */
export function offeredAgents(
  taskOn: boolean,
  agents: Record<string, AgentDefinition> | undefined,
): AgentInfo[] {
  if (!taskOn) return [];
  const defined =
    agents && Object.keys(agents).length > 0 ? agents : { "general-purpose": GENERAL_PURPOSE_AGENT };
  return Object.entries(defined).map(([name, def]) =>
    def.model !== undefined
      ? { name, description: def.description, model: def.model }
      : { name, description: def.description },
  );
}

/** The context window's use by category, estimated at about four characters a token. */
export function contextUsage(view: {
  model: string;
  systemPrompt: string;
  tools: readonly Tool[];
  session: LoopSession;
  contextWindow: number | undefined;
  maxOutputTokens: number;
  agents: AgentInfo[];
}): ContextUsage {
  const toolTokens = (t: Tool) =>
    Math.ceil((t.name.length + t.description.length + JSON.stringify(t.jsonSchema).length) / 4);
  const mcpTools = view.tools
    .filter((t) => t.name.startsWith("mcp__"))
    .map((t) => ({ name: t.name, serverName: t.name.split("__")[1] ?? "", tokens: toolTokens(t) }));
  const system = Math.ceil(view.systemPrompt.length / 4);
  const builtIn = view.tools
    .filter((t) => !t.name.startsWith("mcp__"))
    .reduce((n, t) => n + toolTokens(t), 0);
  const mcp = mcpTools.reduce((n, t) => n + t.tokens, 0);
  const messages = estimateMessageTokens(view.session.messages);
  const used = system + builtIn + mcp + messages;
  const window = view.contextWindow ?? 200_000;
  // The same reserve the loop keeps free before it compacts.
  const reserve = Math.min(20_000 + view.maxOutputTokens, window / 4);
  const categories: ContextCategory[] = [
    { id: "system_prompt", name: "System prompt", tokens: system, color: "gray", kind: "used" },
    { id: "system_tools", name: "System tools", tokens: builtIn, color: "blue", kind: "used" },
    { id: "mcp_tools", name: "MCP tools", tokens: mcp, color: "cyan", kind: "used" },
    { id: "messages", name: "Messages", tokens: messages, color: "purple", kind: "used" },
    {
      id: "autocompact_buffer",
      name: "Autocompact buffer",
      tokens: Math.round(reserve),
      color: "yellow",
      kind: "buffer",
    },
    {
      id: "free_space",
      name: "Free space",
      tokens: Math.max(0, Math.round(window - used - reserve)),
      color: "white",
      kind: "free",
    },
  ];
  const last = view.session.lastCallUsage;
  return {
    categories,
    totalTokens: used,
    maxTokens: window,
    rawMaxTokens: window,
    percentage: Math.round((used / window) * 1000) / 10,
    gridRows: [],
    model: view.model,
    memoryFiles: [],
    mcpTools,
    agents: view.agents.map((a) => ({
      agentType: a.name,
      source: "options",
      tokens: Math.ceil((a.name.length + a.description.length) / 4),
    })),
    autoCompactThreshold: Math.round(window - reserve),
    isAutoCompactEnabled: true,
    apiUsage: last ? { ...last } : null,
  };
}
