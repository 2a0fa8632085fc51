/**
 * `query()`: the drop-in for the Claude Agent SDK's `query()`. It returns a `Query`, an async
 * generator of SDK messages with control methods. One input (a string prompt) is one run; an
 * `AsyncIterable` prompt, `streamInput()` or `sendUserMessage()` make it multi-turn, one run and one
 * `result` per user message, until the input ends.
 */
import { withCurrentSpelling } from "../llm/tool-result-spelling.js";
import { type ContentBlock, emptyUsage, type Usage } from "../llm/types.js";
import { withPlugins } from "../runtime/plugin-options.js";
import {
  type AgentEvent,
  type AgentMessage,
  type AgentState,
  createSession,
  type ExitReason,
  type RunOutcome,
  type Session,
} from "../runtime/session.js";
import { withSettings } from "../runtime/settings-options.js";
import { startTelemetry } from "../telemetry/index.js";
import { createAsyncQueue } from "./async-queue.js";
import { readerPace } from "./backpressure.js";
import { claudeToolResponse } from "./claude-tool-response.js";
import { initMessage } from "./init-message.js";
import { callListener } from "./listener-errors.js";
import { withMainAgent } from "./main-agent.js";
import type { QueryOptions } from "./options.js";
import { checkOptions, checkPrompt, USER_MESSAGE_SHAPE, userMessageContent } from "./options-check.js";
import { createQueryControls, type QueryControls } from "./query-controls.js";
import { buildResultMessage, withStructuredVerdict } from "./result-message.js";
import type { SDKContentBlock, SDKMessage, SDKResultMessage, SDKUserMessage } from "./sdk-messages.js";
import { createSdkStream } from "./sdk-stream.js";

/** The input queue's mark for a run on the history as it stands, without a new user message. */
const CONTINUE_RUN = Symbol("continue run");

/**
 * A query with the session under it, for `Agent` (not exported from the package): `Agent` queues its
 * `continue()` runs among its prompts, and asks the session whether its history can be continued.
 */
export interface QueryDriver {
  readonly query: Query;
  readonly session: Session;
  /** Queues a run on the history as it is (after an interrupted or failed run), in input order. */
  queueContinue(): void;
}

/** A user message as `query()` takes it in multi-turn mode (the SDK's `SDKUserMessage`). */
export type SDKUserMessageInput = Pick<SDKUserMessage, "message"> &
  Partial<Omit<SDKUserMessage, "message" | "type">> & { type: "user" };

/** The handle `query()` returns: iterate it for messages, call its methods to steer the run. */
export interface Query extends AsyncGenerator<SDKMessage, void>, QueryControls {
  /** Stops the current run: the stream and running tools end, every tool call gets a result. */
  interrupt(): Promise<void>;
  /** Ends the whole query: aborts any run, stops reading input, closes the stream. */
  close(): void;
  /** Feeds further user messages (multi-turn). */
  streamInput(stream: AsyncIterable<SDKUserMessageInput>): Promise<void>;
  /** Queues one user message as the next turn (multi-turn). */
  sendUserMessage(content: string | ContentBlock[]): void;
  /**
   * Delivers a message at the next turn boundary of the current run. With `interrupt: true`, tool
   * calls not yet started are skipped with an explicit result.
   */
  steer(content: string, options?: { interrupt?: boolean }): void;
  /** Compacts the history now (between runs, or at the next turn boundary of the current one). */
  compact(instructions?: string): Promise<void>;
  /** Resolves with the last result message once the query has ended. */
  done(): Promise<SDKResultMessage | undefined>;
  readonly sessionId: string;
  /** Phase and step of the loop, observable. */
  readonly state: AgentState;
  /** Why the last run ended (undefined while the first runs). */
  exitReason(): ExitReason | undefined;
  turnCount(): number;
  totalCostUsd(): number;
  totalUsage(): Usage;
}

/**
 * Runs an agent. Example:
 * ```ts
 * for await (const message of query({ prompt: "Fix the failing test", options: { model: "anthropic/claude-sonnet-4-5" } })) {
 *   if (message.type === "result") console.log(message.result);
 * }
 * ```
 * Throws `InvalidOptionError` at once for an option it cannot honour (a wrong type, an unknown name,
 * a Claude Agent SDK option Goat does not implement); a failure to start (an unknown `resume` id)
 * arrives as an error `result` message.
 */
export function query(params: {
  prompt: string | AsyncIterable<SDKUserMessageInput>;
  options?: QueryOptions;
}): Query {
  return openQuery(params).query;
}

/** `query()`, with the session under it and a way to queue `continue` runs (for `Agent`). */
export function openQuery(params: {
  prompt: string | AsyncIterable<SDKUserMessageInput>;
  options?: QueryOptions;
}): QueryDriver {
  checkPrompt(params);
  const { warnings } = checkOptions(params.options);
  // What cannot be used of a Claude Code settings file is said with the options' own warnings.
  const warn = (message: string) => warnings.push(message);
  const options = withMainAgent(withPlugins(withSettings(params.options ?? {}, warn), warn));
  const output = createAsyncQueue<SDKMessage>();
  // User messages, each one run; CONTINUE_RUN is a run on the history as it stands.
  const inputs = createAsyncQueue<AgentMessage | typeof CONTINUE_RUN>();
  // The uuid of each user message: the host's own (SDKUserMessage.uuid) or one made here. It names
  // the run's file checkpoint and comes back on the result as user_message_uuid.
  const inputIds = new WeakMap<AgentMessage, string>();
  // A tool result may come spelled as Claude's messages spell it (`is_error`): read as Goat's `isError`.
  const userInput = (content: string | ContentBlock[] | SDKContentBlock[], uuid?: string): AgentMessage => {
    const message: AgentMessage = withCurrentSpelling({ role: "user", content: content as ContentBlock[] });
    inputIds.set(message, typeof uuid === "string" && uuid !== "" ? uuid : crypto.randomUUID());
    return message;
  };
  const streamFor = (parentToolUseId?: string) =>
    createSdkStream({
      sessionId: () => runtime.sessionId,
      includePartialMessages: options.includePartialMessages === true,
      push: (m) => output.push(m),
      parentToolUseId,
      // A subagent's messages are in its own transcript, which resumeSessionAt does not name.
      uuidOf: parentToolUseId === undefined ? (m) => runtime.messageUuid(m) : undefined,
    });
  const toSdk = streamFor();
  // A subagent's events become SDK messages marked with its Task call's id, until that call ends.
  const childStreams = new Map<string, (event: AgentEvent) => void>();
  // OpenTelemetry spans, when a tracer provider is registered (set once the runtime has started).
  let recordSpans: ((event: AgentEvent) => void) | undefined;
  const onEvent = (event: AgentEvent) => {
    recordSpans?.(event);
    if (event.type === "subagent_event") {
      let child = childStreams.get(event.parentToolUseId);
      if (!child) {
        child = streamFor(event.parentToolUseId);
        childStreams.set(event.parentToolUseId, child);
      }
      child(event.event);
    } else {
      toSdk(event);
      if (event.type === "tool_execution_end") childStreams.delete(event.toolUseId);
    }
    runtime.debugTrace(event);
    // A listener's bug must not break the run it listens to: it is reported, not rethrown.
    if (options.onEvent) callListener(options.onEvent, event, options.onListenerError);
  };
  // A host that reads slowly pauses the model's stream instead of growing the buffer without bound.
  // PostToolUse hooks see a tool's output as Claude Code gives it.
  const session = createSession(options, {
    onEvent,
    pace: readerPace(output),
    toolResponse: claudeToolResponse,
  });
  const { runtime } = session;

  let lastResult: SDKResultMessage | undefined;
  // Set only when the session could not start (no run has an exit reason then).
  let startExit: ExitReason | undefined;
  // From taking an input until its result: close() then aborts the run instead of letting it finish.
  let inRun = false;
  let closed = false;
  const finished = drive();

  if (typeof params.prompt === "string") {
    inputs.push(userInput(params.prompt));
    inputs.close();
  } else void pump(params.prompt, true);

  const warnHost = (content: string): void => {
    output.push({
      type: "system",
      subtype: "informational",
      uuid: crypto.randomUUID(),
      session_id: runtime.sessionId,
      content,
      level: "warning",
    });
  };

  async function pump(stream: AsyncIterable<SDKUserMessageInput>, closeAfter: boolean) {
    let n = 0;
    try {
      for await (const m of stream) {
        n++;
        // Untyped callers (plain JavaScript, JSON from elsewhere) can send anything: one bad
        // message is skipped, not allowed to end the stream or to reach the loop.
        const content = userMessageContent(m);
        if (content === undefined) {
          warnHost(`Input message ${n} skipped: ${USER_MESSAGE_SHAPE}`);
          continue;
        }
        inputs.push(userInput(content, m.uuid));
      }
    } catch (error) {
      warnHost(`The input stream failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (closeAfter) inputs.close();
  }

  async function drive(): Promise<void> {
    for (const warning of warnings) onEvent({ type: "warning", message: warning });
    const started = Date.now();
    try {
      await session.start();
    } catch (error) {
      // A session that cannot start (an unknown resume id, a store that fails) still ends with a result.
      runtime.state.setTerminal("error");
      startExit = "error";
      lastResult = buildResultMessage(
        startFailure(error),
        runtime.session,
        runtime.sessionId,
        Date.now() - started,
      );
      output.push(lastResult);
      await runtime.dispose(startExit).catch(() => {});
      output.close();
      return;
    }
    try {
      recordSpans = await startTelemetry(options.telemetry, options.env ?? process.env, {
        agentName: "goat",
        sessionId: () => runtime.sessionId,
        currentModel: () => runtime.loopConfig.getModel(),
      });
      for (;;) {
        const input = await inputs.next();
        if (input === undefined || closed || runtime.signal.aborted) break;
        inRun = true;
        output.push(initMessage(runtime.initInfo()));
        const run = await (input === CONTINUE_RUN
          ? session.continue()
          : session.run(input, inputIds.get(input)));
        inRun = false;
        const result = withStructuredVerdict(
          {
            ...buildResultMessage(run.outcome, runtime.session, runtime.sessionId, run.durationMs),
            user_message_uuid: run.userMessageId,
          },
          runtime.structuredVerdict(),
        );
        runtime.recordRun({
          subtype: result.subtype,
          numTurns: result.num_turns,
          runCostUsd: result.run_cost_usd,
          usage: result.usage,
          durationMs: result.duration_ms,
          ...("errors" in result && result.is_error ? { errors: result.errors } : {}),
        });
        lastResult = result;
        output.push(result);
        if (run.outcome.exitReason === "aborted") break;
      }
      runtime.state.setTerminal(terminalPhase(session.lastExit, runtime.signal.aborted));
    } catch (error) {
      runtime.state.setTerminal("error");
      output.push({
        type: "system",
        subtype: "informational",
        uuid: crypto.randomUUID(),
        session_id: runtime.sessionId,
        content: `Goat stopped on an unexpected error: ${error instanceof Error ? error.message : String(error)}`,
        level: "warning",
      });
    } finally {
      await session.end();
      output.close();
    }
  }

  const controls = createQueryControls(session, options, output);

  const iterator = output[Symbol.asyncIterator]();
  const handle: Query = {
    next: () => iterator.next() as Promise<IteratorResult<SDKMessage, void>>,
    return: async () => {
      handle.close();
      return { done: true, value: undefined };
    },
    throw: async (error) => {
      handle.close();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return handle;
    },
    async interrupt() {
      session.interrupt();
    },
    close() {
      inputs.close();
      // Between runs there is nothing to stop: the session ends cleanly. During a run, it is aborted.
      closed = true;
      if (inRun) runtime.abort();
    },
    ...controls,
    streamInput: (stream) => pump(stream, false),
    sendUserMessage(content) {
      inputs.push(userInput(content));
    },
    steer(content, opts) {
      runtime.steer(withCurrentSpelling({ role: "user", content }), opts?.interrupt === true);
    },
    async compact(instructions) {
      // Between runs, at once; during a run, as soon as it ends (the history is not swapped mid-turn).
      await session.idle();
      await runtime.compactNow(instructions);
    },
    done: async () => {
      await finished;
      return lastResult;
    },
    get sessionId() {
      return runtime.sessionId;
    },
    get state() {
      return runtime.state;
    },
    exitReason: () => startExit ?? session.lastExit,
    turnCount: () => session.turnCount,
    totalCostUsd: () => runtime.session.totalCostUsd,
    totalUsage: () => ({ ...runtime.session.usage }),
    [Symbol.asyncDispose]: async () => {
      handle.close();
      await finished;
    },
  } as Query;
  return { query: handle, session, queueContinue: () => inputs.push(CONTINUE_RUN) };
}

function startFailure(error: unknown): RunOutcome {
  return {
    exitReason: "error",
    numTurns: 0,
    steps: [],
    stopReason: null,
    resultText: "",
    errors: [`The session could not start: ${error instanceof Error ? error.message : String(error)}`],
    apiDurationMs: 0,
    usage: emptyUsage(),
    costUsd: 0,
    permissionDenials: [],
  };
}

function terminalPhase(exit: ExitReason | undefined, aborted: boolean): "done" | "cancelled" | "error" {
  if (aborted || exit === "aborted" || exit === "interrupted") return "cancelled";
  if (exit === "error" || exit === "max_tokens") return "error";
  return "done";
}
