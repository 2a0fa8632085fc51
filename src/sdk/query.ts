/**
 * `query()`: the drop-in for the Claude Agent SDK's `query()`. It returns a `Query`, an async
 * generator of SDK messages with control methods. One input (a string prompt) is one run; an
 * `AsyncIterable` prompt, `streamInput()` or `sendUserMessage()` make it multi-turn, one run and one
 * `result` per user message, until the input ends.
 */
import { GoatError, InvalidOptionError } from "../errors.js";
import { type ContentBlock, emptyUsage, type Usage } from "../llm/types.js";
import type { AgentEvent, AgentMessage, ExitReason } from "../loop/events.js";
import { agentLoop, type RunOutcome } from "../loop/loop.js";
import type { AgentState } from "../loop/state.js";
import type {
  McpResource,
  McpResourceContents,
  McpServerConfig,
  McpServerStatus,
  McpSetServersResult,
} from "../mcp/types.js";
import type { PermissionRulesListing } from "../permissions/rule-listing.js";
import type { RewindFilesResult } from "../runtime/file-checkpoints.js";
import type { QueryOptions } from "../runtime/options.js";
import { withPlugins } from "../runtime/plugin-options.js";
import { createRuntime, type Runtime } from "../runtime/runtime.js";
import type {
  PermissionModeName,
  SDKMessage,
  SDKResultMessage,
  SDKUserMessage,
} from "../runtime/sdk-messages.js";
import type {
  AccountInfo,
  AgentInfo,
  ContextUsage,
  InitializationResult,
  SlashCommand,
  SupportedModel,
} from "../runtime/session-info.js";
import { withSettings } from "../runtime/settings-options.js";
import { startTelemetry } from "../telemetry/index.js";
import { describeShellStatus } from "../tools/background-shells.js";
import { CLAUDE_CODE_PROTOCOL_VERSION } from "../version.js";
import { createAsyncQueue } from "./async-queue.js";
import { pacedByReader } from "./backpressure.js";
import { builtinCommandOf, runBuiltinCommand } from "./builtin-commands.js";
import { callListener } from "./listener-errors.js";
import { withMainAgent } from "./main-agent.js";
import { checkOptions } from "./options-check.js";
import { buildResultMessage } from "./result-message.js";
import { createSdkStream } from "./sdk-stream.js";

/**
 * Internal to `Agent` (not exported from the package): queue a run that continues from the session's
 * history without a new user message, and ask whether the history can be continued.
 */
export const CONTINUE_RUN = Symbol("goat.continueRun");
/** See `CONTINUE_RUN`. */
export const CAN_CONTINUE = Symbol("goat.canContinue");

/** What `Agent` reaches on a `Query` besides its public methods. */
export interface ContinuableQuery extends Query {
  /** Queues a run on the history as it is (after an interrupted or failed run); no user message. */
  [CONTINUE_RUN](): void;
  /** True when the history ends with a user message or tool results, which the model has not answered. */
  [CAN_CONTINUE](): boolean;
}

/** A user message as `query()` takes it in multi-turn mode (the SDK's `SDKUserMessage`). */
export type SDKUserMessageInput = Pick<SDKUserMessage, "message"> &
  Partial<Omit<SDKUserMessage, "message" | "type">> & { type: "user" };

/** The display modes `setMaxThinkingTokens` takes, as the Claude Agent SDK's. */
const THINKING_DISPLAYS: readonly string[] = ["summarized", "omitted", "highlights"];

/** The handle `query()` returns: iterate it for messages, call its methods to steer the run. */
export interface Query extends AsyncGenerator<SDKMessage, void> {
  /** Stops the current run: the stream and running tools end, every tool call gets a result. */
  interrupt(): Promise<void>;
  /** Ends the whole query: aborts any run, stops reading input, closes the stream. */
  close(): void;
  /** Uses `model` from the next model call on (undefined: back to the configured model). */
  setModel(model?: string): Promise<void>;
  setPermissionMode(mode: PermissionModeName): Promise<void>;
  /**
   * Sets a fixed thinking budget from the next model call on (null or 0: no thinking), as the Claude
   * Agent SDK's. `thinkingDisplay` replaces the display mode for the rest of the session (null clears
   * it; left out, the mode in force stays). `"highlights"` is accepted by Anthropic only from the
   * sessions it hosts: the promise rejects, the display stays as it was, and the budget still applies.
   */
  setMaxThinkingTokens(
    tokens: number | null,
    thinkingDisplay?: "summarized" | "omitted" | "highlights" | null,
  ): Promise<void>;
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
  /** Every configured MCP server and its status (`connected`, `failed`, `pending`, `disabled`). */
  mcpServerStatus(): Promise<McpServerStatus[]>;
  /** Replaces the MCP servers added at run time; those from the options stay. */
  setMcpServers(servers: Record<string, McpServerConfig>): Promise<McpSetServersResult>;
  /** Closes an MCP server and connects it again. */
  reconnectMcpServer(name: string): Promise<void>;
  /** Disables or re-enables an MCP server. */
  toggleMcpServer(name: string, enabled: boolean): Promise<void>;
  /**
   * Reads one resource of a connected MCP server (any scheme, not only Claude Code's `ui://`). Rejects
   * for an unknown server, one without resources, or the server's own error.
   */
  readMcpResource(serverName: string, uri: string): Promise<McpResourceContents>;
  /** The resources the connected MCP servers offer (one server's with `serverName`). Goat's own. */
  listMcpResources(serverName?: string): Promise<McpResource[]>;
  /**
   * Makes one MCP server's tools ask per call even in bypassPermissions (`"default"`), or lifts that
   * (`null`). Only tightens. `warning` is set when no server has that name yet (it still applies once one does).
   */
  setMcpPermissionModeOverride(serverName: string, mode: "default" | null): Promise<{ warning?: string }>;
  /**
   * Merges settings into the session's flag layer: model, fallbackModel, effortLevel,
   * alwaysThinkingEnabled, permissions, hooks, env (see flag-settings.ts). Rejects, changing nothing,
   * for a key Goat has no meaning for or a bad value.
   */
  applyFlagSettings(settings: Record<string, unknown>): Promise<void>;
  /**
   * Tells Write and Edit that `path` was read (in a Read since dropped from the context), if it still
   * has modification time `mtime` (whole ms); a file changed since is left needing a fresh Read.
   */
  seedReadState(path: string, mtime: number): Promise<{ seeded: boolean; reason?: string }>;
  /**
   * Puts the files Write, Edit and NotebookEdit changed back as they were when the user message
   * `userMessageId` arrived (its uuid: the host's own, or `user_message_uuid` on its result), and
   * says what changed; `dryRun` only says. Needs `enableFileCheckpointing`.
   */
  rewindFiles(userMessageId: string, options?: { dryRun?: boolean }): Promise<RewindFilesResult>;
  /** The Claude Agent SDK's initialize answer: commands, agents, models, account, output styles. */
  initializationResult(): Promise<InitializationResult>;
  /**
   * The slash commands a prompt may start with: Goat's built-in `/compact`, then the custom ones
   * (`slashCommands`, `.claude/commands/`).
   */
  supportedCommands(): Promise<SlashCommand[]>;
  /** The models of the session's catalog, with the thinking and effort each takes. */
  supportedModels(): Promise<SupportedModel[]>;
  /** The subagents the Task tool offers, as `system/init` lists them. */
  supportedAgents(): Promise<AgentInfo[]>;
  /** The provider serving the current model and where its key comes from. */
  accountInfo(): Promise<AccountInfo>;
  /** How full the context window is, by category (system prompt, tools, MCP tools, messages, free). */
  getContextUsage(): Promise<ContextUsage>;
  /**
   * Stops a running subagent (by its Task call's `tool_use_id`, the `parent_tool_use_id` of its
   * messages) or kills a background shell (by its id); a `task_notification` with status `stopped`
   * follows. An id that names nothing running (a task that already ended, a typo) changes nothing,
   * as in Claude Code: a host racing a task's end must not have to catch an error.
   */
  stopTask(taskId: string): Promise<void>;
  /**
   * Moves a running Bash command (its call's `tool_use_id`; every one, without it) to the background,
   * like Ctrl+B in Claude Code: the call answers at once with the shell's id and the turn goes on; a
   * `task_notification` follows when the command ends. Resolves false only when `toolUseId` names no
   * running command. Subagents cannot be moved. Rejects when `CLAUDE_CODE_DISABLE_BACKGROUND_TASKS` is set.
   */
  backgroundTasks(toolUseId?: string): Promise<boolean>;
  /**
   * The permission rules in force with their sources (settings, flags, the host's answers, managed),
   * the added directories, and whether only managed rules count: Claude Code's `list_permission_rules`.
   */
  listPermissionRules(): Promise<PermissionRulesListing>;
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
  const userInput = (content: string | ContentBlock[], uuid?: string): AgentMessage => {
    const message: AgentMessage = { role: "user", content };
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
  const runtime: Runtime = createRuntime(options, onEvent);
  // A host that reads slowly pauses the model's stream instead of growing the buffer without bound.
  runtime.loopConfig.callModel = pacedByReader(runtime.loopConfig.callModel, output);

  let runAbort: AbortController | undefined;
  let interrupted = false;
  let lastResult: SDKResultMessage | undefined;
  let lastExit: ExitReason | undefined;
  let turns = 0;
  let currentRun: Promise<unknown> = Promise.resolve();
  let inRun = false;
  let closed = false;
  const finished = drive();

  if (typeof params.prompt === "string") {
    inputs.push(userInput(params.prompt));
    inputs.close();
  } else void pump(params.prompt, true);

  async function pump(stream: AsyncIterable<SDKUserMessageInput>, closeAfter: boolean) {
    try {
      for await (const m of stream) inputs.push(userInput(m.message.content, m.uuid));
    } catch (error) {
      output.push({
        type: "system",
        subtype: "informational",
        uuid: crypto.randomUUID(),
        session_id: runtime.sessionId,
        content: `The input stream failed: ${error instanceof Error ? error.message : String(error)}`,
        level: "warning",
      });
    }
    if (closeAfter) inputs.close();
  }

  async function drive(): Promise<void> {
    for (const warning of warnings) onEvent({ type: "warning", message: warning });
    const started = Date.now();
    try {
      await runtime.start();
    } catch (error) {
      // A session that cannot start (an unknown resume id, a store that fails) still ends with a result.
      runtime.state.setTerminal("error");
      lastExit = "error";
      lastResult = buildResultMessage(
        startFailure(error),
        runtime.session,
        runtime.sessionId,
        Date.now() - started,
      );
      output.push(lastResult);
      await runtime.dispose(lastExit).catch(() => {});
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
        runAbort = new AbortController();
        const stopRun = () => runAbort?.abort();
        runtime.signal.addEventListener("abort", stopRun, { once: true });
        interrupted = false;
        const started = Date.now();
        const resuming = input === CONTINUE_RUN;
        const userMessageId = (!resuming && inputIds.get(input)) || crypto.randomUUID();
        runtime.checkpoints?.begin(userMessageId);
        output.push(runtime.initMessage());
        const builtin = resuming ? undefined : builtinCommandOf(input);
        const running = builtin
          ? runBuiltinCommand(builtin, runtime)
          : agentLoop(
              runtime.loopConfig,
              runtime.session,
              await runtime.beforeRun(resuming ? [] : [input], runAbort.signal),
              runAbort.signal,
              { interrupted: () => interrupted },
            );
        currentRun = running;
        const outcome = await running;
        currentRun = Promise.resolve();
        inRun = false;
        runtime.signal.removeEventListener("abort", stopRun);
        turns += outcome.numTurns;
        lastExit = outcome.exitReason;
        lastResult = await runtime.afterRun({
          ...buildResultMessage(outcome, runtime.session, runtime.sessionId, Date.now() - started),
          user_message_uuid: userMessageId,
        });
        output.push(lastResult);
        if (outcome.exitReason === "aborted") break;
      }
      runtime.state.setTerminal(terminalPhase(lastExit, runtime.signal.aborted));
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
      await runtime.dispose(lastExit);
      output.close();
    }
  }

  const mcpManager = (name: string) => {
    const manager = runtime.mcp();
    if (!manager) throw noMcpServer(name);
    return manager;
  };

  const iterator = output[Symbol.asyncIterator]();
  const handle: ContinuableQuery = {
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
      interrupted = true;
      runAbort?.abort();
    },
    close() {
      inputs.close();
      // Between runs there is nothing to stop: the session ends cleanly. During a run, it is aborted.
      closed = true;
      if (inRun) runtime.abort();
    },
    async setModel(model) {
      runtime.setModel(model);
    },
    async setPermissionMode(mode) {
      runtime.setPermissionMode(mode);
    },
    async setMaxThinkingTokens(tokens, thinkingDisplay) {
      if (thinkingDisplay != null && !THINKING_DISPLAYS.includes(thinkingDisplay)) {
        throw new InvalidOptionError(
          "thinkingDisplay",
          `setMaxThinkingTokens: thinkingDisplay must be ${THINKING_DISPLAYS.map((d) => `"${d}"`).join(", ")} or null (got ${JSON.stringify(thinkingDisplay)})`,
        );
      }
      if (thinkingDisplay === "highlights") {
        runtime.setThinkingBudget(tokens ?? undefined);
        throw new InvalidOptionError(
          "thinkingDisplay",
          'setMaxThinkingTokens: thinking display "highlights" is accepted by Anthropic only from the sessions it hosts; the display mode is unchanged, the budget applies',
        );
      }
      runtime.setThinkingBudget(tokens ?? undefined, thinkingDisplay);
    },
    streamInput: (stream) => pump(stream, false),
    sendUserMessage(content) {
      inputs.push(userInput(content));
    },
    steer(content, opts) {
      runtime.steer({ role: "user", content }, opts?.interrupt === true);
    },
    async compact(instructions) {
      // Between runs, at once; during a run, as soon as it ends (the history is not swapped mid-turn).
      await currentRun;
      await runtime.compactNow(instructions);
    },
    mcpServerStatus: async () => runtime.mcp()?.status() ?? [],
    setMcpServers: (servers) => runtime.setMcpServers(servers),
    reconnectMcpServer: async (name) => mcpManager(name).reconnect(name),
    toggleMcpServer: async (name, enabled) => mcpManager(name).toggle(name, enabled),
    readMcpResource: async (name, uri) => mcpManager(name).readResource(name, uri, runtime.signal),
    listMcpResources: async (name) => runtime.mcp()?.listResources(name, runtime.signal) ?? [],
    async setMcpPermissionModeOverride(name, mode) {
      if (mode !== "default" && mode !== null) {
        throw new GoatError(
          `setMcpPermissionModeOverride: mode must be "default" or null (Goat has no auto mode), got ${JSON.stringify(mode)}`,
          { code: "invalid_argument" },
        );
      }
      runtime.setMcpPermissionModeOverride(name, mode);
      const known =
        Object.hasOwn(options.mcpServers ?? {}, name) ||
        (runtime.mcp()?.status() ?? []).some((s) => s.name === name);
      return known || mode === null
        ? {}
        : { warning: `No MCP server is named "${name}" yet; the override applies once one is.` };
    },
    applyFlagSettings: async (settings) => runtime.applyFlagSettings(settings),
    seedReadState: (path, mtime) => runtime.seedReadState(path, mtime),
    initializationResult: async () => ({
      commands: runtime.info.commands(),
      agents: runtime.info.agents(),
      output_style: "default",
      available_output_styles: ["default"],
      models: runtime.info.models(),
      account: runtime.info.account(),
      claude_code_version: CLAUDE_CODE_PROTOCOL_VERSION,
    }),
    supportedCommands: async () => runtime.info.commands(),
    supportedModels: async () => runtime.info.models(),
    supportedAgents: async () => runtime.info.agents(),
    accountInfo: async () => runtime.info.account(),
    getContextUsage: async () => runtime.info.contextUsage(),
    async stopTask(taskId) {
      const stopped = await runtime.stopTask(taskId);
      if (!stopped) return;
      output.push({
        type: "system",
        subtype: "task_notification",
        uuid: crypto.randomUUID(),
        session_id: runtime.sessionId,
        task_id: taskId,
        ...(stopped.toolUseId ? { tool_use_id: stopped.toolUseId } : {}),
        status: "stopped",
        output_file: "",
        summary: stopped.toolUseId ? "The subagent was stopped." : "The background shell was killed.",
      });
    },
    listPermissionRules: async () => runtime.listPermissionRules(),
    async backgroundTasks(toolUseId) {
      const moved = runtime.backgroundTasks(toolUseId);
      for (const { toolUseId: id, shell } of moved) {
        void shell.done.then(() => {
          if (output.closed) return;
          output.push({
            type: "system",
            subtype: "task_notification",
            uuid: crypto.randomUUID(),
            session_id: runtime.sessionId,
            task_id: shell.id,
            tool_use_id: id,
            status:
              shell.status === "completed" ? "completed" : shell.status === "killed" ? "stopped" : "failed",
            output_file: "",
            summary: `The command moved to the background ended: ${describeShellStatus(shell)}.`,
          });
        });
      }
      return toolUseId === undefined || moved.length > 0;
    },
    async rewindFiles(userMessageId, opts) {
      if (!runtime.checkpoints) {
        return {
          canRewind: false,
          error: "File checkpointing is off: pass enableFileCheckpointing: true to query() to rewind files.",
        };
      }
      // Not in the middle of a run's edits: the rewind waits for the run to end.
      await currentRun;
      return runtime.checkpoints.rewind(userMessageId, opts);
    },
    done: async () => {
      await finished;
      return lastResult;
    },
    [CONTINUE_RUN]() {
      inputs.push(CONTINUE_RUN);
    },
    [CAN_CONTINUE]() {
      const last = runtime.session.messages.findLast((m) => m.role !== "custom");
      return last?.role === "user";
    },
    get sessionId() {
      return runtime.sessionId;
    },
    get state() {
      return runtime.state;
    },
    exitReason: () => lastExit,
    turnCount: () => turns,
    totalCostUsd: () => runtime.session.totalCostUsd,
    totalUsage: () => ({ ...runtime.session.usage }),
    [Symbol.asyncDispose]: async () => {
      handle.close();
      await finished;
    },
  } as ContinuableQuery;
  return handle;
}

/** The MCP manager for a server name, or an error saying there is no such server. */
function noMcpServer(name: string): GoatError {
  return new GoatError(`No MCP server named "${name}": none are configured.`, { code: "unknown_mcp_server" });
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
