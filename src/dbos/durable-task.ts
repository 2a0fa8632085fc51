/**
 * The Task tool of a durable session: each subagent runs as a child workflow, a durable session of
 * its own, instead of a loop inside the parent's workflow. The child's id derives from the parent's
 * workflow id and the Task call's tool_use id, so a replay of the parent after a crash finds the child
 * it started (DBOS records the start as a step of the parent) and waits for it, while DBOS recovers
 * the child where it stood: its finished steps are not run again, nor the whole subagent re-run.
 *
 * The child gets the agent's system prompt, model and turn limit, the agent's tools among the
 * session's (never Task: subagents start no subagents), and the parent's working directory and
 * permission settings. Unlike an in-process subagent it does not draw on the parent's turn and
 * budget limits, and its messages go to its own message log (its workflow id), not the parent's.
 * The tool is side-effect free to the scheduler: starting a child changes nothing in this session,
 * so several Task calls of one answer run together, as in process (the child's own calls are asked
 * about one by one). The permission engine lets a Task call through as it does the in-process one.
 */
import { expandModelAlias } from "../llm/resolve.js";
import { type AgentDefinition, createTaskTool, GENERAL_PURPOSE_AGENT } from "../runtime/subagents.js";
import type { Tool } from "../tools/types.js";

/** What the child session of one Task call is asked to do. */
interface SubagentRun {
  /** The child workflow's id. */
  childId: string;
  /** The parent's session id (the child's transcript is one of its subagent transcripts). */
  parentSessionId: string;
  prompt: string;
  systemPrompt: string;
  /** `provider/model`; undefined: the parent's. */
  model?: string;
  maxTurns?: number;
  /** Tool names the child may use (undefined: the session's, Task excepted). */
  tools?: string[];
  disallowedTools?: string[];
}

/** How a child session ended: its final answer, or why it stopped. */
interface SubagentOutcome {
  ok: boolean;
  text: string;
}

/** Starts the child workflow (or finds it, on a replay) and waits for its outcome. */
export type SubagentRunner = (run: SubagentRun, signal: AbortSignal) => Promise<SubagentOutcome>;

/** The Task tool for `agents` whose subagents run as child workflows of `parentWorkflowId`. */
export function durableTaskTool(
  agents: Record<string, AgentDefinition>,
  parentWorkflowId: string,
  runChild: SubagentRunner,
): Tool {
  const available = Object.keys(agents).length > 0 ? agents : { "general-purpose": GENERAL_PURPOSE_AGENT };
  const shape = createTaskTool(available, () => {
    throw new Error("The durable Task tool runs no in-process subagent.");
  });
  return {
    ...shape,
    sideEffect: "none",
    async execute(input, ctx) {
      const { subagent_type: agentType, prompt } = input as { subagent_type: string; prompt: string };
      const def = available[agentType];
      if (!def) {
        return {
          content: `Unknown subagent_type "${agentType}". Available: ${Object.keys(available).join(", ")}.`,
          isError: true,
        };
      }
      const outcome = await runChild(
        {
          childId: `${parentWorkflowId}.task-${ctx.toolUseId}`,
          parentSessionId: ctx.sessionId,
          prompt,
          systemPrompt: def.prompt,
          ...(def.model && def.model !== "inherit" ? { model: expandModelAlias(def.model) } : {}),
          ...(def.maxTurns !== undefined ? { maxTurns: def.maxTurns } : {}),
          ...(def.tools ? { tools: def.tools.filter((t) => t !== "Task") } : {}),
          disallowedTools: [...(def.disallowedTools ?? []), "Task"],
        },
        ctx.signal,
      );
      return outcome.ok
        ? { content: outcome.text || "(the agent finished without a text answer)" }
        : { content: `The ${agentType} agent stopped: ${outcome.text}`, isError: true };
    },
  };
}
