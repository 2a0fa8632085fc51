/**
 * What every service of a session reads, made first: where it runs and with which environment, the
 * session's abort signal, the history and agent state that outlive a run, the tools' session state,
 * and the warning channel. Nothing here reaches into the loop's config.
 */
import { createLoopSession, type LoopSession } from "../loop/context.js";
import type { AgentEvent } from "../loop/events.js";
import { createAgentState, type MutableAgentState } from "../loop/state.js";
import { createToolSessionState, type ToolSessionState } from "../tools/types.js";
import type { SessionOptions } from "./options.js";

/** An environment: variable names to values. */
type Env = Record<string, string | undefined>;

/** The ground the session's services stand on. */
export interface RuntimeCore {
  readonly options: SessionOptions;
  readonly cwd: string;
  /** The options' environment (the process's without one). */
  readonly env: Env;
  /** The environment in force: `env`, plus what the flag settings layer adds mid-session. */
  sessionEnv(): Env;
  /** Replaces what the flag settings layer adds to `env` (undefined: nothing). */
  setFlagEnv(flagEnv: Record<string, string> | undefined): void;
  /** Aborts the whole session: `close()`, the caller's signal or its abortController. */
  readonly controller: AbortController;
  readonly state: MutableAgentState;
  /** The history and its totals, which every run continues. */
  readonly session: LoopSession;
  /** What the tools keep between calls (files read, background shells). */
  readonly toolState: ToolSessionState;
  /** Every agent event of the session, to the host. */
  emit(event: AgentEvent): void;
  /** Says `message` to the host now (a `warning` event). */
  report(message: string): void;
  /** Holds `message` until the session starts: while it is being built, the host is not listening yet. */
  warnAtStart(message: string): void;
  /** Says the held start-up warnings, once. */
  flushStartupWarnings(): void;
}

/** Builds the core of a session from its options. */
export function createRuntimeCore(options: SessionOptions, emit: (event: AgentEvent) => void): RuntimeCore {
  const env = options.env ?? process.env;
  const controller = options.abortController ?? new AbortController();
  if (options.signal) {
    const outer = options.signal;
    if (outer.aborted) controller.abort();
    else outer.addEventListener("abort", () => controller.abort(), { once: true });
  }
  let sessionEnv = env;
  const startupWarnings: string[] = [];
  const report = (message: string) => emit({ type: "warning", message });
  return {
    options,
    cwd: options.cwd ?? process.cwd(),
    env,
    sessionEnv: () => sessionEnv,
    setFlagEnv(flagEnv) {
      sessionEnv = flagEnv ? { ...env, ...flagEnv } : env;
    },
    controller,
    state: createAgentState(),
    session: createLoopSession(),
    toolState: createToolSessionState(),
    emit,
    report,
    warnAtStart: (message) => startupWarnings.push(message),
    flushStartupWarnings() {
      for (const message of startupWarnings.splice(0)) report(message);
    },
  };
}
