/**
 * The parent side of subagents: what the Task tool is given of the session when a subagent starts
 * (its config, history, tools, the SubagentStart/Stop hook points, a transcript of its own), and the
 * running subagents by Task call id and agent id, so the host can stop one (`stopTask`).
 */
import type { LoopSession } from "../loop/context.js";
import type { LoopConfig } from "../loop/loop-config.js";
import type { Tool } from "../tools/types.js";
import type { SessionHooks } from "./session-hooks.js";
import type { SubagentParent } from "./subagents.js";

/** What the host of subagents reads of the session, each when a subagent starts. */
export interface SubagentHostDeps {
  config(): LoopConfig;
  session: LoopSession;
  /** The parent's tools, the Task tool excluded. */
  tools(): Tool[];
  hooks: Pick<SessionHooks, "fire">;
  /** Opens a subagent's transcript beside the parent's; undefined when the session records nothing. */
  openChildTranscript?: SubagentParent["openChildTranscript"];
  /** The session's start-up memory (CLAUDE.md and its kin), which a subagent is given as Claude's are. */
  memory?(): SubagentParent["memory"];
}

/** The subagents of one session. */
export interface SubagentHost {
  /** What the Task tool needs of the parent session. */
  parent(): SubagentParent;
  /** Stops a running subagent named by its Task call id or agent id: its call id, or undefined when none runs. */
  stop(taskId: string): { toolUseId: string } | undefined;
}

/** Builds the parent side of a session's subagents. */
export function createSubagentHost(deps: SubagentHostDeps): SubagentHost {
  const running = new Map<string, { stop: () => void; toolUseId: string }>();
  return {
    parent: () => ({
      config: deps.config(),
      session: deps.session,
      registerTask: (toolUseId, agentId, stop) => {
        const entry = { stop, toolUseId };
        running.set(toolUseId, entry);
        running.set(agentId, entry);
        return () => {
          running.delete(toolUseId);
          running.delete(agentId);
        };
      },
      tools: deps.tools(),
      fireSubagentHook: async (event, fields, signal) => {
        if (event === "SubagentStart") await deps.hooks.fire("SubagentStart", fields, signal);
        else
          await deps.hooks.fire(
            "SubagentStop",
            { ...fields, agent_transcript_path: "", stop_hook_active: false },
            signal,
          );
      },
      openChildTranscript: deps.openChildTranscript,
      memory: deps.memory?.(),
    }),
    stop(taskId) {
      const task = running.get(taskId);
      if (!task) return undefined;
      task.stop();
      return { toolUseId: task.toolUseId };
    },
  };
}
