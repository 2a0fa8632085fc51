/**
 * What a session tells its host about itself, in the Claude Agent SDK's shapes (its `Query` methods'
 * answers): the context usage by category, and the initialize answer. The figures come from the
 * runtime's neutral ones (`runtime/context-figures.ts`, `runtime/session-offers.ts`).
 */
import type { AccountInfo } from "../llm/account.js";
import type { SupportedModel } from "../llm/model-list.js";
import type { ContextFigures } from "../runtime/context-figures.js";
import type { AgentInfo, SlashCommand } from "../runtime/session-offers.js";

export type { AccountInfo, AgentInfo, SlashCommand, SupportedModel };

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

/** The context figures as the SDK's `getContextUsage()` answers them. */
export function toContextUsage(figures: ContextFigures): ContextUsage {
  const { systemPromptTokens: system, builtInToolTokens: builtIn, messageTokens: messages } = figures;
  const mcp = figures.mcpTools.reduce((n, t) => n + t.tokens, 0);
  const used = system + builtIn + mcp + messages;
  const window = figures.contextWindow;
  const reserve = figures.reserveTokens;
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
  const last = figures.lastCallUsage;
  return {
    categories,
    totalTokens: used,
    maxTokens: window,
    rawMaxTokens: window,
    percentage: Math.round((used / window) * 1000) / 10,
    gridRows: [],
    model: figures.model,
    memoryFiles: [],
    mcpTools: figures.mcpTools,
    agents: figures.agents.map((a) => ({ agentType: a.name, source: "options", tokens: a.tokens })),
    autoCompactThreshold: Math.round(window - reserve),
    isAutoCompactEnabled: true,
    apiUsage: last ? { ...last } : null,
  };
}
