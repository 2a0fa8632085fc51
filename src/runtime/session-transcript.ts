/**
 * The session's id and transcript. A new session has its id at once; a resumed, continued or forked
 * one takes its transcript's id when it opens (`start()`), so everything that names the session reads
 * the id here when it needs it rather than keeping a copy.
 */
import { randomUUID } from "node:crypto";
import type { Usage } from "../llm/types.js";
import type { RuntimeCore } from "./runtime-core.js";
import { openSession, type SessionBinding } from "./session-binding.js";
import type { SubagentParent } from "./subagents.js";

/** The session's id and open transcript. */
export interface SessionTranscript {
  /** A new session's id at once; a resumed or continued session's once `open()` has run. */
  readonly id: string;
  /** The open transcript (undefined until `open()`). */
  readonly binding: SessionBinding | undefined;
  /** Opens the transcript the options ask for (new, resume, continue or fork) and takes its id. */
  open(model: string): Promise<SessionBinding>;
  /**
   * Opens subagent `agentId`'s transcript beside this one, recording `model`; undefined when the
   * session records nothing.
   */
  readonly openChild:
    | ((agentId: string, model: string) => ReturnType<NonNullable<SubagentParent["openChildTranscript"]>>)
    | undefined;
}

/** Builds the session's transcript handle; nothing is opened until `open()`. */
export function createSessionTranscript(
  core: RuntimeCore,
  costOf: (model: string, usage: Usage) => number,
): SessionTranscript {
  const { options, cwd, env, report } = core;
  let id = options.sessionId ?? randomUUID();
  let binding: SessionBinding | undefined;
  const where = {
    cwd,
    sessionStore: options.sessionStore,
    goatHome: env.GOAT_HOME,
    costOf,
    onWarning: report,
  };
  return {
    get id() {
      return id;
    },
    get binding() {
      return binding;
    },
    async open(model) {
      binding = await openSession({
        ...where,
        model,
        sessionId: id,
        resume: options.resume,
        continue: options.continue,
        forkSession: options.forkSession,
        resumeSessionAt: options.resumeSessionAt,
        persistSession: options.persistSession,
      });
      id = binding.sessionId;
      return binding;
    },
    openChild:
      options.persistSession === false && !options.sessionStore
        ? undefined
        : async (agentId, model) => {
            const child = await openSession({
              ...where,
              model,
              sessionId: `${id}.agent-${agentId}`,
            });
            return { onMessage: child.recordMessage, close: child.close };
          },
  };
}
