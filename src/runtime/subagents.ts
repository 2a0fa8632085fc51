/**
 * Subagents: the Task tool runs a child loop with its own context, system prompt, tool subset and
 * model. The child shares the parent's permissions and hooks (through the same before/after tool
 * call functions), its abort signal (interrupting the parent stops the child), its cost ledger (each
 * child call is added to the parent's totals as it finishes) and its limits: the parent's maxTurns,
 * maxBudgetUsd and stopWhen bind the child too (loop/parent-run.ts). At most `MAX_TASKS_PER_ANSWER`
 * Task calls of one answer run. Its events reach the parent's stream marked with the Task call's id.
 */
import { randomUUID } from "node:crypto";
import { getMaxListeners, setMaxListeners } from "node:events";
import { expandModelAlias } from "../llm/resolve.js";
import { createLoopSession, type LoopSession } from "../loop/context.js";
import type { AgentEvent } from "../loop/events.js";
import { agentLoop } from "../loop/loop.js";
import type { LoopConfig } from "../loop/loop-config.js";
import { createAgentState } from "../loop/state.js";
import { memorySection } from "../settings/memory-files.js";
import { defineTool } from "../tools/define-tool.js";
import { jsonSchema } from "../tools/tool-schema.js";
import type { Tool } from "../tools/types.js";
import { createToolSessionState, disposeToolSessionState } from "../tools/types.js";
import type { InstructionFile } from "./system-prompt.js";

/** A subagent the model can start with the Task tool (the Claude Agent SDK's `AgentDefinition`). */
export interface AgentDefinition {
  /** When to use this agent; the model reads it in the Task tool's description. */
  description: string;
  /** The subagent's system prompt. */
  prompt: string;
  /** Tool names it may use (default: the parent's tools, without Task). */
  tools?: string[];
  /** Tool names it may not use, removed from `tools`. */
  disallowedTools?: string[];
  /** `provider/model`, or `inherit` (default) for the parent's model. */
  model?: string;
  maxTurns?: number;
}

/** The agent used when none are defined. */
export const GENERAL_PURPOSE_AGENT: AgentDefinition = {
  description:
    "General-purpose agent for researching complex questions, searching for code, and running multi-step tasks on its own.",
  prompt:
    "You are a subagent started by another agent to do one task. Do it completely with the tools you have, then answer with a concise report of what you found or did: that answer is all the other agent will see.",
};

/** What a subagent run needs from its parent session. */
export interface SubagentParent {
  config: LoopConfig;
  session: LoopSession;
  /** Every tool of the parent session, by name (the Task tool itself excluded). */
  tools: Tool[];
  /** Runs a hook point and returns whether it blocked (SubagentStart / SubagentStop). */
  fireSubagentHook: (
    event: "SubagentStart" | "SubagentStop",
    fields: {
      agent_id: string;
      agent_type: string;
      last_assistant_message?: string;
      stop_hook_active?: boolean;
    },
    signal: AbortSignal,
  ) => Promise<void>;
  /**
   * The session's start-up memory (CLAUDE.md and its kin, as read for the main prompt): a subagent's
   * prompt carries it too, as Claude Code's do, so the project's rules bind its work.
   */
  memory?: readonly InstructionFile[];
  /** Makes the running subagent stoppable by the host (`stopTask`); returns the unregister function. */
  registerTask?: (toolUseId: string, agentId: string, stop: () => void) => () => void;
  /** Stores the child's transcript beside the parent's; returns its recorder hooks. */
  openChildTranscript?: (
    agentId: string,
  ) => Promise<{ onMessage: LoopConfig["onMessage"]; close: () => Promise<void> }>;
}

/**
 * Most Task calls of one model answer that run: 10. Each is a whole agent loop, so an answer asking for
 * thirty would start thirty loops at once; the calls past the cap are answered with an error asking
 * the model to start fewer at a time.
 */
export const MAX_TASKS_PER_ANSWER = 10;

/** Input of the Task tool. */
const taskInput = jsonSchema<{ description: string; prompt: string; subagent_type: string }>(
  {
    type: "object",
    properties: {
      description: { type: "string", description: "A short (3-5 word) description of the task" },
      prompt: { type: "string", description: "The task for the agent to perform" },
      subagent_type: { type: "string", description: "The type of specialized agent to use for this task" },
    },
    required: ["description", "prompt", "subagent_type"],
  },
  { removeAdditional: true },
);

/** Builds the Task tool for `agents` (the general-purpose agent when empty). */
export function createTaskTool(agents: Record<string, AgentDefinition>, parent: () => SubagentParent): Tool {
  const available = Object.keys(agents).length > 0 ? agents : { "general-purpose": GENERAL_PURPOSE_AGENT };
  const list = Object.entries(available)
    .map(([name, def]) => `- ${name}: ${def.description}`)
    .join("\n");
  return defineTool({
    name: "Task",
    description: `Launch a new agent to handle a complex, multi-step task on its own. Available agent types:\n${list}\n\nSeveral Task calls in one answer run at the same time. The agent's final answer is returned to you; the user does not see it.`,
    inputSchema: taskInput,
    // The child's own tool calls go through permissions one by one; the Task calls can overlap.
    sideEffect: "read",
    execute: async (input, ctx) => {
      const def = available[input.subagent_type];
      if (!def) {
        return {
          content: `Unknown subagent_type "${input.subagent_type}". Available: ${Object.keys(available).join(", ")}.`,
          isError: true,
        };
      }
      const from = parent();
      const position = taskCallPosition(from.session, ctx.toolUseId);
      if (position > MAX_TASKS_PER_ANSWER) {
        return {
          content: `Not run: at most ${MAX_TASKS_PER_ANSWER} Task calls of one answer run, and this was Task call ${position}. Start at most ${MAX_TASKS_PER_ANSWER} agents at once; start the others after these have answered.`,
          isError: true,
        };
      }
      return runSubagent(from, input.subagent_type, def, input.prompt, ctx.signal, ctx.toolUseId);
    },
  });
}

/** The 1-based position of the Task call `toolUseId` among the Task calls of the latest answer (0: not found). */
function taskCallPosition(session: LoopSession, toolUseId: string): number {
  for (let i = session.messages.length - 1; i >= 0; i--) {
    const message = session.messages[i];
    if (message.role !== "assistant") continue;
    let position = 0;
    for (const block of message.content) {
      if (block.type !== "tool_use" || block.name !== "Task") continue;
      position++;
      if (block.id === toolUseId) return position;
    }
    return 0;
  }
  return 0;
}

/** Runs one subagent to the end and returns its final answer as a tool result. */
export async function runSubagent(
  parent: SubagentParent,
  agentType: string,
  def: AgentDefinition,
  prompt: string,
  signal: AbortSignal,
  toolUseId: string,
) {
  const agentId = randomUUID();
  const parentConfig = parent.config;
  const model = !def.model || def.model === "inherit" ? parentConfig.getModel() : expandModelAlias(def.model);
  const listed = def.tools ? parent.tools.filter((t) => def.tools!.includes(t.name)) : parent.tools;
  const tools = def.disallowedTools ? listed.filter((t) => !def.disallowedTools!.includes(t.name)) : listed;
  const transcript = await parent.openChildTranscript?.(agentId);
  const remainingBudget =
    parentConfig.maxBudgetUsd === undefined
      ? undefined
      : parentConfig.maxBudgetUsd - parent.session.totalCostUsd;
  const child: LoopConfig = {
    ...parentConfig,
    getModel: () => model,
    systemPrompt: withMemory(def.prompt, parent.memory),
    tools,
    maxTurns: def.maxTurns,
    maxBudgetUsd: remainingBudget,
    stopWhen: [],
    getSteeringMessages: undefined,
    steeringInterruptsTools: undefined,
    getFollowUpMessages: undefined,
    onStop: undefined,
    onMessage: transcript?.onMessage,
    persistBarrier: undefined,
    toolState: createToolSessionState(),
    state: createAgentState(),
    emit: (event: AgentEvent) =>
      parentConfig.emit({ type: "subagent_event", parentToolUseId: toolUseId, agentId, agentType, event }),
  };
  const childSession = createLoopSession();
  // The child draws from the parent's run: its turns, budget and stop conditions (loop/parent-run.ts).
  childSession.parentRun = {
    session: parent.session,
    maxTurns: parentConfig.maxTurns,
    maxBudgetUsd: parentConfig.maxBudgetUsd,
    stopWhen: parentConfig.stopWhen,
  };
  // The child stops with the parent's call, or alone when the host stops this task.
  const stop = new AbortController();
  const stopWithParent = () => stop.abort();
  if (signal.aborted) stop.abort();
  else {
    // The Task calls of one answer may share this signal: up to MAX_TASKS_PER_ANSWER listeners, each
    // removed when its child ends, beside the scheduler's own. Node warns of a leak past 10.
    const wanted = MAX_TASKS_PER_ANSWER + 10;
    if (getMaxListeners(signal) < wanted) setMaxListeners(wanted, signal);
    signal.addEventListener("abort", stopWithParent, { once: true });
  }
  let stoppedByHost = false;
  const unregister = parent.registerTask?.(toolUseId, agentId, () => {
    stoppedByHost = true;
    stop.abort();
  });
  await parent.fireSubagentHook("SubagentStart", { agent_id: agentId, agent_type: agentType }, signal);
  try {
    const outcome = await agentLoop(child, childSession, [{ role: "user", content: prompt }], stop.signal, {
      interrupted: () => stop.signal.aborted,
    });
    await parent.fireSubagentHook(
      "SubagentStop",
      {
        agent_id: agentId,
        agent_type: agentType,
        last_assistant_message: outcome.resultText,
        stop_hook_active: false,
      },
      signal,
    );
    const failed = !["end_turn", "predicate", "stop_sequence", "hook"].includes(outcome.exitReason);
    const text = stoppedByHost
      ? `The ${agentType} agent was stopped by the user before it finished.${outcome.resultText ? `\nIts last answer:\n${outcome.resultText}` : ""}`
      : failed
        ? `The ${agentType} agent stopped (${outcome.exitReason}): ${outcome.errors.join("; ") || "no answer"}.${outcome.resultText ? `\nIts last answer:\n${outcome.resultText}` : ""}`
        : outcome.resultText || "(the agent finished without a text answer)";
    return {
      content: text,
      isError: failed,
      details: {
        agentId,
        agentType,
        numTurns: outcome.numTurns,
        costUsd: outcome.costUsd,
        exitReason: outcome.exitReason,
      },
    };
  } finally {
    unregister?.();
    signal.removeEventListener("abort", stopWithParent);
    await disposeToolSessionState(child.toolState);
    await transcript?.close();
  }
}

/** The agent's prompt followed by the session's memory section, when it has one. */
function withMemory(prompt: string, memory: readonly InstructionFile[] | undefined): string {
  const section = memory && memorySection(memory);
  return section ? `${prompt}\n\n${section}` : prompt;
}
