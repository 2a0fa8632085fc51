/**
 * One ACP session: a multi-turn `query()` fed by `session/prompt`, its messages streamed to the client
 * as `session/update`s. One prompt runs at a time (the protocol's rule); `session/cancel` interrupts
 * it (the stream and every running tool stop, each tool call gets its result, so the transcript
 * stays paired) and the prompt answers `cancelled`.
 */
import {
  type AgentContext,
  RequestError,
  type SessionUpdate,
  type StopReason,
} from "@agentclientprotocol/sdk";
import type {
  ContentBlock,
  PermissionModeName,
  Query,
  SDKResultMessage,
  SDKUserMessageInput,
} from "../../index.js";
import { MessageUpdates } from "./message-updates.js";

/** A prompt waiting for its run's result. */
interface Turn {
  resolve: (reason: StopReason) => void;
  reject: (error: Error) => void;
  cancelled: boolean;
}

/** The user messages a session's `query()` reads, pushed one per prompt. */
export class PromptQueue implements AsyncIterable<SDKUserMessageInput> {
  private readonly waiting: Array<(result: IteratorResult<SDKUserMessageInput>) => void> = [];
  private readonly queued: SDKUserMessageInput[] = [];
  private ended = false;

  push(content: ContentBlock[]): void {
    const message: SDKUserMessageInput = {
      type: "user",
      message: { role: "user", content },
      parent_tool_use_id: null,
    };
    const waiter = this.waiting.shift();
    if (waiter) waiter({ value: message, done: false });
    else this.queued.push(message);
  }

  end(): void {
    this.ended = true;
    for (const waiter of this.waiting.splice(0)) waiter({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<SDKUserMessageInput> {
    return {
      next: () => {
        const message = this.queued.shift();
        if (message) return Promise.resolve({ value: message, done: false });
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => this.waiting.push(resolve));
      },
    };
  }
}

/** A running ACP session. */
export class AcpSession {
  private readonly updates = new MessageUpdates();
  private turn: Turn | undefined;
  private closed = false;
  /** The permission mode the client last chose (the session's current one). */
  mode: PermissionModeName;

  constructor(
    readonly id: string,
    readonly cwd: string,
    private readonly query: Query,
    private readonly input: PromptQueue,
    private readonly client: AgentContext,
    mode: PermissionModeName,
  ) {
    this.mode = mode;
    void this.pump();
  }

  /** Runs one prompt to its end; resolves with why it stopped. */
  prompt(content: ContentBlock[]): Promise<StopReason> {
    if (this.closed) return Promise.reject(RequestError.invalidRequest(undefined, "the session has ended"));
    if (this.turn) {
      return Promise.reject(
        RequestError.invalidRequest(undefined, "a prompt is already running in this session"),
      );
    }
    return new Promise<StopReason>((resolve, reject) => {
      this.turn = { resolve, reject, cancelled: false };
      this.input.push(content);
    });
  }

  /** Interrupts the running prompt, if any. */
  async cancel(): Promise<void> {
    if (!this.turn) return;
    this.turn.cancelled = true;
    await this.query.interrupt();
  }

  async setMode(mode: PermissionModeName): Promise<void> {
    await this.query.setPermissionMode(mode);
    this.mode = mode;
  }

  /** The session's mode changed inside Goat (a permission answer): the editor's menu follows. */
  modeChanged(mode: PermissionModeName): void {
    if (mode === this.mode) return;
    this.mode = mode;
    void this.send({ sessionUpdate: "current_mode_update", currentModeId: mode });
  }

  async setModel(model: string): Promise<void> {
    await this.query.setModel(model);
  }

  /** The current model (`provider/model`) and the session's catalog. */
  async models(): Promise<{ current: string; models: Awaited<ReturnType<Query["supportedModels"]>> }> {
    const [account, models] = await Promise.all([this.query.accountInfo(), this.query.supportedModels()]);
    // The current model is always on the menu, even one the catalog does not list.
    const listed = models.some((m) => m.value === account.model);
    return {
      current: account.model,
      models: listed
        ? models
        : [{ value: account.model, displayName: account.model, description: "" }, ...models],
    };
  }

  /** Sends an update to the client (the replay of a loaded session uses it too). */
  send(update: SessionUpdate): Promise<void> {
    return this.client.notify("session/update", { sessionId: this.id, update });
  }

  /** Ends the session: the running prompt is cancelled, the query closed. */
  close(): void {
    this.closed = true;
    this.turn?.resolve("cancelled");
    this.turn = undefined;
    this.input.end();
    this.query.close();
  }

  private async pump(): Promise<void> {
    try {
      for await (const message of this.query) {
        for (const update of this.updates.updatesOf(message)) await this.send(update);
        if (message.type === "result") await this.finishTurn(message);
      }
      this.turn?.reject(RequestError.internalError(undefined, "the session ended"));
    } catch (error) {
      this.turn?.reject(RequestError.internalError(undefined, (error as Error).message));
    } finally {
      this.turn = undefined;
      this.closed = true;
    }
  }

  private async finishTurn(result: SDKResultMessage): Promise<void> {
    const turn = this.turn;
    this.turn = undefined;
    await this.sendUsage(result);
    if (!turn) return;
    if (turn.cancelled || result.exit_reason === "interrupted" || result.exit_reason === "aborted") {
      turn.resolve("cancelled");
    } else if (result.is_error && result.exit_reason === "error") {
      const errors = "errors" in result ? result.errors.join("; ") : "";
      turn.reject(RequestError.internalError(undefined, errors || "the run failed"));
    } else turn.resolve(stopReasonOf(result));
  }

  /** How full the context is and what the session has cost, after each turn. */
  private async sendUsage(result: SDKResultMessage): Promise<void> {
    try {
      const usage = await this.query.getContextUsage();
      const api = usage.apiUsage;
      const used = api
        ? api.input_tokens + api.output_tokens + api.cache_creation_input_tokens + api.cache_read_input_tokens
        : usage.totalTokens;
      await this.send({
        sessionUpdate: "usage_update",
        used,
        size: usage.maxTokens,
        cost: { amount: result.session_total_cost_usd, currency: "USD" },
      });
    } catch {
      // The session closed meanwhile: nothing to report to.
    }
  }
}

function stopReasonOf(result: SDKResultMessage): StopReason {
  switch (result.exit_reason) {
    case "max_turns":
    case "max_budget":
      return "max_turn_requests";
    case "max_tokens":
      return "max_tokens";
    default:
      return "end_turn";
  }
}
