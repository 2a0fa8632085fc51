/**
 * A session: one runtime (its services wired into the loop) and the run-per-message driver over it.
 * Each user message is one run: the built-in `/compact`, or UserPromptSubmit hooks then the loop.
 * Runs never overlap; `interrupt()` stops the current one and the session stays usable. Every host
 * (`query()`, `Agent` through it, the CLI and the durable workers through `query()`) drives a session
 * the same way: `start()`, then `run()` or `continue()` per message, then `end()`.
 *
 * The session speaks Goat's neutral shapes (agent events, messages, run outcomes); turning them into
 * the Claude Agent SDK's messages is the SDK's job (src/sdk/).
 */
import type { AgentEvent, AgentMessage, ExitReason } from "../loop/events.js";
import { agentLoop, type RunOutcome } from "../loop/loop.js";
import { builtinCommandOf, runBuiltinCommand } from "./builtin-commands.js";
import type { SessionOptions } from "./options.js";
import { createRuntime, type Runtime, type RuntimeHostOptions } from "./runtime.js";

// The shapes a host of the session handles, so a host needs no import from the loop itself.
export type { LoopSession, ModelUsage } from "../loop/context.js";
export type { AgentEvent, AgentEventListener, AgentMessage, ExitReason } from "../loop/events.js";
export type { RunOutcome } from "../loop/loop.js";
export type { AgentState } from "../loop/state.js";

/** What a session tells its host, and what the host adds (pacing, hook shapes), given when it is created. */
export interface SessionHost extends RuntimeHostOptions {
  /** Every agent event of the session, its subagents' wrapped (`subagent_event`). */
  onEvent(event: AgentEvent): void;
}

/** One run's outcome, with what the host needs to report it. */
interface SessionRun {
  outcome: RunOutcome;
  /** The user message's id the run's file checkpoint is named by (the host's own or a new one). */
  userMessageId: string;
  /** Wall time of the run, in ms. */
  durationMs: number;
}

/** A session: the runtime's controls, and its runs one after another. */
export interface Session {
  /** The services and controls of the session (model, permissions, MCP, tasks, checkpoints, …). */
  readonly runtime: Runtime;
  /** True from the start of a run until its outcome is known. */
  readonly running: boolean;
  /** Why the last run ended (undefined before the first). */
  readonly lastExit: ExitReason | undefined;
  /** Turns taken over all runs. */
  readonly turnCount: number;
  /** Opens the session: resume or fork, MCP servers, SessionStart hooks. Rejects when it cannot start. */
  start(): Promise<void>;
  /** Runs one user message (the built-in `/compact`, or the model). Waits for the run before it. */
  run(message: AgentMessage, userMessageId?: string): Promise<SessionRun>;
  /** Runs the model on the history as it stands (after an interrupted or failed run); no new message. */
  continue(): Promise<SessionRun>;
  /** True when the history ends with a user message or tool results, which the model has not answered. */
  canContinue(): boolean;
  /** Stops the current run (its stream and tools); the next run starts normally. */
  interrupt(): void;
  /** Resolves once no run is going on (at once between runs). */
  idle(): Promise<void>;
  /** Ends the session: SessionEnd hooks, background shells killed, transcript and connections closed. */
  end(): Promise<void>;
}

/** Builds a session. Throws for options that cannot work (see `createRuntime`). */
export function createSession(options: SessionOptions, host: SessionHost): Session {
  const runtime = createRuntime(options, host.onEvent, host);
  let runAbort: AbortController | undefined;
  let interrupted = false;
  let running = false;
  let lastExit: ExitReason | undefined;
  let turns = 0;
  // Runs are serialised: each waits for the one before it.
  let currentRun: Promise<unknown> = Promise.resolve();

  async function runOnce(message: AgentMessage | undefined, userMessageId: string): Promise<SessionRun> {
    running = true;
    runAbort = new AbortController();
    const stopRun = () => runAbort?.abort();
    runtime.signal.addEventListener("abort", stopRun, { once: true });
    interrupted = false;
    const started = Date.now();
    try {
      runtime.checkpoints?.begin(userMessageId);
      const builtin = message ? builtinCommandOf(message) : undefined;
      const outcome = builtin
        ? await runBuiltinCommand(builtin, runtime)
        : await agentLoop(
            runtime.loopConfig,
            runtime.session,
            await runtime.beforeRun(message ? [message] : [], runAbort.signal),
            runAbort.signal,
            { interrupted: () => interrupted },
          );
      turns += outcome.numTurns;
      lastExit = outcome.exitReason;
      return { outcome, userMessageId, durationMs: Date.now() - started };
    } finally {
      running = false;
      runtime.signal.removeEventListener("abort", stopRun);
    }
  }

  const queueRun = (message: AgentMessage | undefined, userMessageId: string) => {
    const run = currentRun.then(() => runOnce(message, userMessageId));
    currentRun = run.catch(() => {});
    return run;
  };

  return {
    runtime,
    get running() {
      return running;
    },
    get lastExit() {
      return lastExit;
    },
    get turnCount() {
      return turns;
    },
    start: () => runtime.start(),
    run: (message, userMessageId) => queueRun(message, userMessageId ?? crypto.randomUUID()),
    continue: () => queueRun(undefined, crypto.randomUUID()),
    canContinue() {
      const last = runtime.session.messages.findLast((m) => m.role !== "custom");
      return last?.role === "user";
    },
    interrupt() {
      interrupted = true;
      runAbort?.abort();
    },
    idle: () => currentRun.then(() => {}),
    end: () => runtime.dispose(lastExit),
  };
}
