/**
 * Errors of the durable engine kept apart from the session's own errors.
 *
 * A step body in this folder never throws: a tool's failure or a provider's error is returned as
 * the step's checkpoint. So whatever `DBOS.runStep` or `DBOS.recv` throws comes from DBOS itself —
 * a replay that meets a different step sequence (non-determinism), the workflow cancelled, this
 * execution no longer owning the workflow, the database gone. None of these is something the model
 * can act on; were they to reach the loop as a tool's or a provider's error, the model would read
 * "Bash failed: DBOS…" and the workflow would end SUCCESS with a step missing. The guard instead
 * records the first such error, stops the session at once (no further model call), and the
 * workflow rethrows it, so DBOS ends the workflow (ERROR, or hands it to its owner) for all to see.
 */
import { DBOS } from "@dbos-inc/dbos-sdk";

/** One session's guard: the durable wrappers run their DBOS calls through it. */
export class EngineGuard {
  #failure: { error: unknown } | undefined;
  #stopSession: () => void = () => {};

  /** What stops the session (its `interrupt`), set once the session exists. */
  onFailure(stop: () => void): void {
    this.#stopSession = stop;
  }

  /** The engine's first error, if one happened. */
  get failure(): { error: unknown } | undefined {
    return this.#failure;
  }

  /** `DBOS.runStep`, whose throws are the engine's. */
  step<T>(body: () => Promise<T>, name: string): Promise<T> {
    return this.run(() => DBOS.runStep(body, { name }));
  }

  /** `DBOS.recv`, whose throws are the engine's. */
  recv<T>(topic: string, seconds: number): Promise<T | null> {
    return this.run(() => DBOS.recv<T>(topic, seconds));
  }

  /** Any other DBOS call (a child workflow's start and result), whose throws are the engine's. */
  async run<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (this.#failure === undefined) {
        this.#failure = { error };
        this.#stopSession();
      }
      throw error;
    }
  }
}
