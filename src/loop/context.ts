/**
 * The loop's conversation bookkeeping: the session's history and running totals, turning agent
 * messages into provider messages, and estimating how many tokens the next call will send.
 */
import type { AssistantMessage, Message, Usage } from "../llm/types.js";
import { emptyUsage } from "../llm/types.js";
import type { AgentMessage } from "./events.js";
import type { StepResult, StopCondition } from "./stop-conditions.js";

/** Running totals for one model, in the Claude Agent SDK's `modelUsage` shape. */
export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  webSearchRequests: number;
  costUSD: number;
  contextWindow: number;
  maxOutputTokens: number;
}

/** What lives across runs of one session: the history and what it has cost so far. */
export interface LoopSession {
  messages: AgentMessage[];
  /** Cost of this process's calls (all runs of the query). */
  totalCostUsd: number;
  /** Cost recorded in the transcript before this process took the session over (a resume). */
  priorCostUsd: number;
  usage: Usage;
  modelUsage: Record<string, ModelUsage>;
  /** Usage reported by the last model call, the base of the next token estimate. */
  lastCallUsage?: Usage;
  /** History length when `lastCallUsage` was measured. */
  lastCallMessageCount: number;
  /** The run in progress (or the last one): what it has used, set by `agentLoop` at its start. */
  run?: RunTally;
  /** On a subagent's session: the parent run it draws from (see loop/parent-run.ts). */
  parentRun?: ParentRun;
}

/** What a run has used, as the subagents it starts see it: they draw from the same limits. */
export interface RunTally {
  /** Model calls started in this run, its subagents' included (what `maxTurns` limits). */
  modelCalls: number;
  /** A subagent met this run's stop condition: the run ends once the current tools are answered. */
  stopRequested: boolean;
  /** The run's own steps (the loop's list; read-only to others). */
  steps: readonly StepResult[];
  /** The session's cost when the run began. */
  costAtStart: number;
}

/** A subagent's parent: its session (with the run tally) and the limits the subagent shares. */
export interface ParentRun {
  /** The parent's session: its ledger (cost) and its current run's tally. */
  session: LoopSession;
  /** The parent's `maxTurns`: model calls of its run, its subagents' included. */
  maxTurns?: number;
  /** The parent's `maxBudgetUsd`, checked against the parent session's cost. */
  maxBudgetUsd?: number;
  /** The parent's stop conditions, checked on its steps followed by the subagent's. */
  stopWhen?: StopCondition[];
}

/** A new, empty session history. */
export function createLoopSession(messages: AgentMessage[] = []): LoopSession {
  return {
    messages,
    totalCostUsd: 0,
    priorCostUsd: 0,
    usage: emptyUsage(),
    modelUsage: {},
    lastCallMessageCount: 0,
  };
}

/** The prefix the default `convertToLlm` puts before a compaction summary. */
export const SUMMARY_PREFIX =
  "This session is being continued from an earlier conversation that ran out of context. Summary of it:\n\n";

/**
 * Default `convertToLlm`: provider messages pass through; a compaction summary becomes user text;
 * other custom messages are the loop's own and are dropped. Consecutive user messages are merged so
 * strict providers accept the history.
 */
export function defaultConvertToLlm(messages: AgentMessage[]): Message[] {
  if (passesThrough(messages)) return messages.slice() as Message[];
  const out: Message[] = [];
  for (const m of messages) {
    let next: Message | undefined;
    if (m.role === "custom") {
      if (m.customType === "compaction_summary") next = { role: "user", content: SUMMARY_PREFIX + m.content };
    } else next = m;
    if (!next) continue;
    const prev = out[out.length - 1];
    if (prev && prev.role === "user" && next.role === "user") {
      out[out.length - 1] = { role: "user", content: [...blocksOf(prev), ...blocksOf(next)] };
    } else out.push(next);
  }
  return out;
}

/** True when no message needs converting or merging: the usual history, copied in one step. */
function passesThrough(messages: AgentMessage[]): boolean {
  let previousUser = false;
  for (const m of messages) {
    if (m.role === "custom") return false;
    const user = m.role === "user";
    if (user && previousUser) return false;
    previousUser = user;
  }
  return true;
}

function blocksOf(m: Message) {
  return typeof m.content === "string" ? [{ type: "text" as const, text: m.content }] : m.content;
}

/** Rough token count of messages: about 4 characters a token, images a flat 1,600. */
export function estimateMessageTokens(messages: AgentMessage[]): number {
  let chars = 0;
  let images = 0;
  for (const m of messages) {
    if (typeof m.content === "string") {
      chars += m.content.length;
      continue;
    }
    for (const b of m.content) {
      if (b.type === "text") chars += b.text.length;
      else if (b.type === "thinking") chars += b.thinking.length;
      else if (b.type === "tool_use") chars += JSON.stringify(b.input).length + b.name.length;
      else if (b.type === "image") images++;
      else if (b.type === "tool_result") {
        if (typeof b.content === "string") chars += b.content.length;
        else
          for (const c of b.content) {
            if (c.type === "text") chars += c.text.length;
            else images++;
          }
      }
    }
  }
  return Math.ceil(chars / 4) + images * 1600;
}

/**
 * Tokens the next call will send: what the provider reported for the last call plus an estimate of
 * what was added since. Falls back to a full estimate when nothing was measured yet.
 */
export function estimateContextTokens(session: LoopSession, systemPrompt: string): number {
  const last = session.lastCallUsage;
  if (!last || session.lastCallMessageCount > session.messages.length) {
    return estimateMessageTokens(session.messages) + Math.ceil(systemPrompt.length / 4);
  }
  const measured =
    last.input_tokens + last.cache_read_input_tokens + last.cache_creation_input_tokens + last.output_tokens;
  return measured + estimateMessageTokens(session.messages.slice(session.lastCallMessageCount));
}

/** Adds a call's usage and cost to the session's totals. */
export function recordUsage(
  session: LoopSession,
  model: string,
  usage: Usage,
  costUsd: number,
  limits: { contextWindow?: number; maxOutputTokens?: number },
): void {
  session.usage.input_tokens += usage.input_tokens;
  session.usage.output_tokens += usage.output_tokens;
  session.usage.cache_read_input_tokens += usage.cache_read_input_tokens;
  session.usage.cache_creation_input_tokens += usage.cache_creation_input_tokens;
  session.totalCostUsd += costUsd;
  session.modelUsage[model] ??= {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadInputTokens: 0,
    cacheCreationInputTokens: 0,
    webSearchRequests: 0,
    costUSD: 0,
    contextWindow: limits.contextWindow ?? 0,
    maxOutputTokens: limits.maxOutputTokens ?? 0,
  };
  const m = session.modelUsage[model];
  m.inputTokens += usage.input_tokens;
  m.outputTokens += usage.output_tokens;
  m.cacheReadInputTokens += usage.cache_read_input_tokens;
  m.cacheCreationInputTokens += usage.cache_creation_input_tokens;
  m.costUSD += costUsd;
  // A subagent's calls are its parent's as they happen, so a shared budget sees them at once.
  if (session.parentRun) recordUsage(session.parentRun.session, model, usage, costUsd, limits);
}

/** The text of the last assistant message, the run's answer. */
export function finalText(messages: AgentMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === "assistant") return textBlocks(m);
  }
  return "";
}

function textBlocks(m: AssistantMessage): string {
  return m.content
    .filter((b) => b.type === "text")
    .map((b) => (b as { text: string }).text)
    .join("");
}
