/**
 * `Agent`: a long-lived, stateful handle over one session, for programs that prefer calling
 * `await agent.prompt(...)` to iterating a message stream. It is a thin layer over a multi-turn
 * `query()`, so both share one loop and behave the same.
 */
import type { ContentBlock } from "../llm/types.js";
import { createAsyncQueue } from "./async-queue.js";
import type { AgentEvent, AgentEventListener } from "./events.js";
import type { QueryOptions } from "./options.js";
import { type Query, query, type SDKUserMessageInput } from "./query.js";
import type { SDKMessage, SDKResultMessage } from "./sdk-messages.js";
import type { AgentState } from "./state.js";

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
  private readonly waiting: Array<{ resolve: (r: SDKResultMessage) => void; reject: (e: Error) => void }> =
    [];
  private readonly query: Query;
  private readonly pump: Promise<void>;

  constructor(options: QueryOptions = {}) {
    const userListener = options.onEvent;
    this.query = query({
      prompt: this.input,
      options: {
        ...options,
        onEvent: (event) => {
          userListener?.(event);
          for (const listener of this.listeners) listener(event);
        },
      },
    });
    this.pump = this.consume();
  }

  /** Sends a user message and resolves with the result of the run it starts. */
  prompt(content: string | ContentBlock[]): Promise<SDKResultMessage> {
    return new Promise((resolve, reject) => {
      if (this.input.closed) {
        reject(new Error("This agent is closed."));
        return;
      }
      this.waiting.push({ resolve, reject });
      this.input.push({ type: "user", message: { role: "user", content } });
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

  /** Receives every agent event; returns the unsubscribe function. */
  subscribe(listener: (event: AgentEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Receives every SDK message; returns the unsubscribe function. */
  onMessage(listener: (message: SDKMessage) => void): () => void {
    this.messageListeners.add(listener);
    return () => this.messageListeners.delete(listener);
  }

  /** Phase and step, observable. */
  get state(): AgentState {
    return this.query.state;
  }

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

  private async consume(): Promise<void> {
    try {
      for await (const message of this.query) {
        for (const listener of this.messageListeners) listener(message);
        if (message.type === "result") this.waiting.shift()?.resolve(message);
      }
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      for (const w of this.waiting.splice(0)) w.reject(failure);
      return;
    }
    for (const w of this.waiting.splice(0))
      w.reject(new Error("The agent was closed before this prompt finished."));
  }
}
