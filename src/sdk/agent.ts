/**
 * `Agent`: a long-lived, stateful handle over one session, for programs that prefer calling
 * `await agent.prompt(...)` to iterating a message stream. It is a thin layer over a multi-turn
 * `query()`, so both share one loop and behave the same. Each call (`prompt`, `continue`) can be
 * cancelled on its own with an `AbortSignal`; listeners cannot break the session (see
 * `listener-errors.ts`); `await using` closes it.
 */
import { AbortError, GoatError } from "../errors.js";
import type { ContentBlock } from "../llm/types.js";
import type { AgentEvent, AgentEventListener, AgentState } from "../runtime/session.js";
import { createAsyncQueue } from "./async-queue.js";
import { callListener } from "./listener-errors.js";
import type { QueryOptions } from "./options.js";
import { openQuery, type Query, type QueryDriver, type SDKUserMessageInput } from "./query.js";
import type { SDKMessage, SDKResultMessage } from "./sdk-messages.js";

/** The queue's mark for a `continue()` among the prompts. */
const CONTINUE_RUN = Symbol("continue run");

/**
 * A stateful agent session.
 *
 * @example
 * const agent = new Agent({ model: "anthropic/claude-sonnet-4-5", cwd: "/repo" });
 * agent.subscribe((e) => e.type === "tool_execution_start" && console.log("running", e.name));
 * const result = await agent.prompt("Run the tests and fix what fails");
 * console.log(result.result);
 * await agent.close();
 */
export class Agent {
  private readonly input = createAsyncQueue<SDKUserMessageInput>();
  private readonly listeners = new Set<AgentEventListener>();
  private readonly messageListeners = new Set<(m: SDKMessage) => void>();
  /** Prompts in the order they were asked; the first is the one running (or about to). */
  private readonly prompts: PendingPrompt[] = [];
  private readonly driver: QueryDriver;
  private readonly query: Query;
  private readonly pump: Promise<void>;
  private readonly onListenerError: QueryOptions["onListenerError"];

  constructor(options: QueryOptions = {}) {
    const userListener = options.onEvent;
    this.onListenerError = options.onListenerError;
    this.driver = openQuery({
      prompt: this.input,
      options: {
        ...options,
        onEvent: (event) => {
          if (userListener) callListener(userListener, event, this.onListenerError);
          for (const listener of this.listeners) callListener(listener, event, this.onListenerError);
        },
      },
    });
    this.query = this.driver.query;
    this.pump = this.consume();
  }

  /**
   * Sends a user message and resolves with the result of the run it starts. Prompts asked while one
   * runs wait their turn. `signal` cancels this prompt: a waiting one is never sent, a running one is
   * interrupted (the session stays usable), and the promise rejects with the signal's reason.
   */
  prompt(
    content: string | ContentBlock[],
    options: { signal?: AbortSignal } = {},
  ): Promise<SDKResultMessage> {
    return this.enqueue(content, options.signal);
  }

  /**
   * Runs the model again on the session's history without a new message, and resolves with that
   * run's result: to go on after a run that was interrupted, hit `maxTurns`, or failed (a provider
   * error after its retries), whose history ends with the user's message or tool results. Waits its
   * turn like `prompt`, and takes the same per-call `signal`. Rejects with a `GoatError`
   * (`nothing_to_continue`) when the model has already answered the last message (pi's `continue()`).
   */
  continue(options: { signal?: AbortSignal } = {}): Promise<SDKResultMessage> {
    return this.enqueue(CONTINUE_RUN, options.signal);
  }

  private enqueue(
    content: PendingPrompt["content"],
    signal: AbortSignal | undefined,
  ): Promise<SDKResultMessage> {
    return new Promise((resolve, reject) => {
      if (this.input.closed) {
        reject(new GoatError("This agent is closed.", { code: "agent_closed" }));
        return;
      }
      if (signal?.aborted) {
        reject(abortReason(signal));
        return;
      }
      const pending: PendingPrompt = { content, resolve, reject, settled: false };
      if (signal) {
        const onAbort = () => this.cancel(pending, abortReason(signal));
        signal.addEventListener("abort", onAbort, { once: true });
        pending.detach = () => signal.removeEventListener("abort", onAbort);
      }
      this.prompts.push(pending);
      if (this.prompts.length === 1) this.send(pending);
    });
  }

  /** Delivers a message at the next turn boundary of the running prompt (see `Query.steer`). */
  steer(content: string, options?: { interrupt?: boolean }): void {
    this.query.steer(content, options);
  }

  /** Stops the running prompt; the agent stays usable for the next one. */
  interrupt(): Promise<void> {
    return this.query.interrupt();
  }

  /**
   * Receives every agent event; returns the unsubscribe function. A listener that throws does not
   * disturb the session or the other listeners: it is reported to `onListenerError`, or once as a
   * process warning.
   */
  subscribe(listener: (event: AgentEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Receives every SDK message; returns the unsubscribe function. A throwing listener is isolated too. */
  onMessage(listener: (message: SDKMessage) => void): () => void {
    this.messageListeners.add(listener);
    return () => this.messageListeners.delete(listener);
  }

  /** Phase and step, observable. */
  get state(): AgentState {
    return this.query.state;
  }

  /** The session's id (the transcript's name when it is persisted). */
  get sessionId(): string {
    return this.query.sessionId;
  }

  /** Total cost of the session so far, in USD. */
  get totalCostUsd(): number {
    return this.query.totalCostUsd();
  }

  /** The underlying query, for its control methods (`setModel`, `setPermissionMode`, `compact`, …). */
  get handle(): Query {
    return this.query;
  }

  /** Ends the session: waits for the running prompt to stop, kills background shells, closes the transcript. */
  async close(): Promise<void> {
    this.input.close();
    this.query.close();
    await this.pump;
  }

  /** `await using agent = new Agent(...)` closes the session when the block ends. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private send(pending: PendingPrompt): void {
    if (pending.content !== CONTINUE_RUN) {
      this.input.push({ type: "user", message: { role: "user", content: pending.content } });
      return;
    }
    // Runs are serialised, so the history is final here: checked now, not when continue() was called.
    if (this.driver.session.canContinue()) {
      this.driver.queueContinue();
      return;
    }
    this.prompts.shift();
    settle(pending);
    pending.reject(
      new GoatError("Nothing to continue: the model has answered the last message. Send a prompt instead.", {
        code: "nothing_to_continue",
      }),
    );
    const next = this.prompts[0];
    if (next && !this.input.closed) this.send(next);
  }

  /** Settles a cancelled prompt: a waiting one is dropped, the running one interrupted. */
  private cancel(pending: PendingPrompt, reason: unknown): void {
    if (pending.settled) return;
    settle(pending);
    pending.reject(reason);
    const index = this.prompts.indexOf(pending);
    if (index > 0) this.prompts.splice(index, 1);
    else if (index === 0) void this.query.interrupt();
  }

  /** A run ended: its prompt gets the result, and the next waiting prompt is sent. */
  private finishRun(result: SDKResultMessage): void {
    const done = this.prompts.shift();
    if (done && !done.settled) {
      settle(done);
      done.resolve(result);
    }
    const next = this.prompts[0];
    if (next && !this.input.closed) this.send(next);
  }

  private failAll(error: Error): void {
    for (const pending of this.prompts.splice(0)) {
      if (pending.settled) continue;
      settle(pending);
      pending.reject(error);
    }
  }

  private async consume(): Promise<void> {
    try {
      for await (const message of this.query) {
        for (const listener of this.messageListeners) callListener(listener, message, this.onListenerError);
        if (message.type === "result") this.finishRun(message);
      }
    } catch (error) {
      this.failAll(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.failAll(new Error("The agent was closed before this prompt finished."));
  }
}

/** A prompt (or a `continue()`) asked of an `Agent` and not yet answered. */
interface PendingPrompt {
  content: string | ContentBlock[] | typeof CONTINUE_RUN;
  resolve: (result: SDKResultMessage) => void;
  reject: (error: unknown) => void;
  settled: boolean;
  /** Removes the abort listener from the caller's signal. */
  detach?: () => void;
}

function settle(pending: PendingPrompt): void {
  pending.settled = true;
  pending.detach?.();
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new AbortError("The prompt was aborted.");
}
