/**
 * How full a session's context window is, by what fills it: the system prompt, the built-in and MCP
 * tools, the messages, and the reserve the loop keeps free before it compacts. Estimated at about four
 * characters a token; the SDK draws Claude's `getContextUsage()` answer from these figures.
 */
import type { Usage } from "../llm/types.js";
import { estimateMessageTokens, type LoopSession } from "../loop/context.js";
import type { Tool } from "../tools/types.js";
import type { AgentInfo } from "./session-offers.js";

/** The context window's use, in estimated tokens. */
export interface ContextFigures {
  model: string;
  systemPromptTokens: number;
  /** The tools that are not MCP servers'. */
  builtInToolTokens: number;
  mcpTools: Array<{ name: string; serverName: string; tokens: number }>;
  messageTokens: number;
  /** The model's context window (200,000 when the catalog does not know it). */
  contextWindow: number;
  /** Tokens kept free below the window: automatic compaction starts at `contextWindow - reserveTokens`. */
  reserveTokens: number;
  /** The subagents offered, each with what its description costs. */
  agents: Array<{ name: string; tokens: number }>;
  /** What the provider reported for the last call, when there was one. */
  lastCallUsage: Usage | undefined;
}

/** Estimates the context window's use. */
export function contextFigures(view: {
  model: string;
  systemPrompt: string;
  tools: readonly Tool[];
  session: LoopSession;
  contextWindow: number | undefined;
  maxOutputTokens: number;
  agents: AgentInfo[];
}): ContextFigures {
  const toolTokens = (t: Tool) =>
    Math.ceil((t.name.length + t.description.length + JSON.stringify(t.jsonSchema).length) / 4);
  const window = view.contextWindow ?? 200_000;
  return {
    model: view.model,
    systemPromptTokens: Math.ceil(view.systemPrompt.length / 4),
    builtInToolTokens: view.tools
      .filter((t) => !t.name.startsWith("mcp__"))
      .reduce((n, t) => n + toolTokens(t), 0),
    mcpTools: view.tools
      .filter((t) => t.name.startsWith("mcp__"))
      .map((t) => ({ name: t.name, serverName: t.name.split("__")[1] ?? "", tokens: toolTokens(t) })),
    messageTokens: estimateMessageTokens(view.session.messages),
    contextWindow: window,
    // The same reserve the loop keeps free before it compacts.
    reserveTokens: Math.min(20_000 + view.maxOutputTokens, window / 4),
    agents: view.agents.map((a) => ({
      name: a.name,
      tokens: Math.ceil((a.name.length + a.description.length) / 4),
    })),
    lastCallUsage: view.session.lastCallUsage,
  };
}
