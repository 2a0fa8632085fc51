/**
 * The observable agent state (what `Query`/`Agent` report as the current phase): which phase the loop is in and which step, read together in
 * one call so a poller never sees a phase from one step with the number of another.
 *
 * Terminal phases are sticky: the first one set wins and later ones are ignored, so a late error from
 * a cleanup path can never turn a clean finish into a failure.
 */

/** Where the loop is. `idle` parks between runs; `done`, `cancelled` and `error` are terminal. */
export type AgentPhase =
  | "starting"
  | "llm_in_flight"
  | "step_finished"
  | "tool_executing"
  | "compacting"
  | "retry_wait"
  | "idle"
  | "done"
  | "cancelled"
  | "error";

/** A phase and the 1-based step it belongs to (0 before the first model call). */
export interface AgentStateSnapshot {
  phase: AgentPhase;
  step: number;
}

/** Read side of the agent state, handed to users. */
export interface AgentState {
  /** Phase and step, read atomically. */
  observe(): AgentStateSnapshot;
  /** Calls `listener` on every change; returns the unsubscribe function. */
  subscribe(listener: (snapshot: AgentStateSnapshot) => void): () => void;
}

/** Write side, used by the loop and by whoever owns the run (query()). */
export interface MutableAgentState extends AgentState {
  /** Moves to a non-terminal phase; ignored once terminal. `step` defaults to the current step. */
  set(phase: Exclude<AgentPhase, "done" | "cancelled" | "error">, step?: number): void;
  /** Sets a terminal phase. Returns false (and changes nothing) if one was already set. */
  setTerminal(phase: "done" | "cancelled" | "error"): boolean;
}

const TERMINAL = new Set<AgentPhase>(["done", "cancelled", "error"]);

/** True for `done`, `cancelled` and `error`. */
export function isTerminalPhase(phase: AgentPhase): boolean {
  return TERMINAL.has(phase);
}

/** Creates a state at (`starting`, 0). */
export function createAgentState(): MutableAgentState {
  // One object replaced on each change: a reader gets both fields from the same write.
  let current: AgentStateSnapshot = Object.freeze({ phase: "starting", step: 0 }) as AgentStateSnapshot;
  const listeners = new Set<(s: AgentStateSnapshot) => void>();

  const publish = (next: AgentStateSnapshot) => {
    current = Object.freeze(next);
    for (const listener of listeners) {
      try {
        listener(current);
      } catch {
        // A listener's failure must not break the loop that is reporting to it.
      }
    }
  };

  return {
    observe: () => current,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    set(phase, step) {
      if (isTerminalPhase(current.phase)) return;
      const nextStep = step ?? current.step;
      if (phase === current.phase && nextStep === current.step) return;
      publish({ phase, step: nextStep });
    },
    setTerminal(phase) {
      if (isTerminalPhase(current.phase)) return false;
      publish({ phase, step: current.step });
      return true;
    },
  };
}
