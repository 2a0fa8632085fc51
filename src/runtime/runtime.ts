/**
 * The runtime of one session: turns `SessionOptions` into the loop's config and owns what outlives a
 * single run — the history, the provider registry, the tools' session state, the agent state, the
 * controls (`setModel`, `steer`, …) and the start and end of the session.
 */
import { randomUUID } from "node:crypto";
import { createLlmCompactor } from "../compaction/llm-compactor.js";
import { GoatError, InvalidOptionError } from "../errors.js";
import { expandModelAlias } from "../llm/resolve.js";
import { compactSession } from "../loop/compact-session.js";
import { createLoopSession, type LoopSession } from "../loop/context.js";
import type { AgentEvent, AgentMessage, ExitReason } from "../loop/events.js";
import type { LoopConfig } from "../loop/loop-config.js";
import { createAgentState, type MutableAgentState } from "../loop/state.js";
import { mcpToolName } from "../mcp/tool-adapter.js";
import type { McpManager, McpServerConfig, McpSetServersResult } from "../mcp/types.js";
import { protectedPathReason } from "../permissions/protected-paths.js";
import type { PermissionRulesListing } from "../permissions/rule-listing.js";
import { parseRuleValue } from "../permissions/rule-parse.js";
import { preloadShellParser } from "../permissions/shell-parser.js";
import type { PermissionMode } from "../permissions/types.js";
import { type BackgroundShell, getBackgroundShell, killBackgroundShell } from "../tools/background-shells.js";
import { seedFileSnapshot } from "../tools/file-state.js";
import { moveForegroundTasks } from "../tools/foreground-tasks.js";
import { resolveToolPath } from "../tools/paths.js";
import {
  createToolSessionState,
  disposeToolSessionState,
  type Tool,
  type ToolContext,
} from "../tools/types.js";
import {
  allowedToolsApprove,
  type CommandExpansionContext,
  commandTurnModel,
  expandCommandInput,
} from "./custom-commands.js";
import { createDebugLog } from "./debug-log.js";
import { createFileCheckpoints, type FileCheckpoints } from "./file-checkpoints.js";
import { createFlagSettings } from "./flag-settings.js";
import { createHostInfo, type HostInfo } from "./host-info.js";
import { meteredModelCaller } from "./metered-caller.js";
import { withNestedMemory } from "./nested-memory.js";
import type { SessionOptions } from "./options.js";
import { pacedModelCaller, type StreamPace } from "./paced-model-caller.js";
import { permissionPromptToolCallback } from "./permission-prompt-tool.js";
import { createSessionReasoning, type ThinkingDisplay } from "./reasoning.js";
import { openSession, type RunRecord, type SessionBinding } from "./session-binding.js";
import { createSessionHooks } from "./session-hooks.js";
import type { SessionInitInfo } from "./session-init.js";
import { startSessionMemory } from "./session-memory.js";
import { createSessionPermissions, createSessionSandboxing } from "./session-policy.js";
import { createSessionProviders } from "./session-providers.js";
import { createSessionTools } from "./session-tools.js";
import { createSmallModel } from "./small-model.js";
import {
  createStructuredOutput,
  type StructuredOutput,
  type StructuredVerdict,
} from "./structured-output.js";
import { createSubagentHost } from "./subagent-host.js";
import { resolveSystemPrompt } from "./system-prompt.js";
import { createAfterToolCall, createBeforeToolCall, type ToolResponseShape } from "./tool-gate.js";

/** What `query()` and `Agent` drive. */
export interface Runtime {
  /** A new session's id at once; a resumed or continued session's id once `start()` has run. */
  readonly sessionId: string;
  /** Aborted when the whole session ends (close(), the caller's signal or abortController). */
  readonly signal: AbortSignal;
  readonly state: MutableAgentState;
  readonly session: LoopSession;
  readonly loopConfig: LoopConfig;
  /** Session start: resume, SessionStart hooks. */
  start(): Promise<void>;
  /**
   * The transcript entry's uuid of a message in the history, so the SDK message that shows it carries
   * the uuid `resumeSessionAt` takes. Undefined when the session is not recorded.
   */
  messageUuid(message: AgentMessage): string | undefined;
  /** What the session says about itself as a run starts (the SDK's `system/init`). */
  initInfo(): SessionInitInfo;
  /** Turns a run's input into what the loop receives (UserPromptSubmit hooks may add context). */
  beforeRun(input: AgentMessage[], signal: AbortSignal): Promise<AgentMessage[]>;
  /** The last run's structured output, or why there is none (undefined without `outputFormat`). */
  structuredVerdict(): StructuredVerdict | undefined;
  /** Records a finished run in the transcript. */
  recordRun(record: RunRecord): void;
  /** Session end: SessionEnd hooks, background shells killed. */
  dispose(lastExit: ExitReason | undefined): Promise<void>;
  abort(): void;
  setModel(model: string | undefined): void;
  setPermissionMode(mode: PermissionMode): void;
  /** A fixed thinking budget (undefined: none); `display` as `SessionReasoning.setThinkingBudget`. */
  setThinkingBudget(tokens: number | undefined, display?: ThinkingDisplay | null): void;
  steer(message: AgentMessage, interruptTools: boolean): void;
  compactNow(instructions?: string): Promise<void>;
  debugTrace(event: AgentEvent): void;
  /** What the host can ask about the session (the Query's informational methods). */
  readonly info: HostInfo;
  /**
   * Stops a running subagent (by its Task call id or agent id) or background shell. Resolves what
   * was stopped, or undefined when nothing running has that id.
   */
  stopTask(taskId: string): Promise<{ toolUseId?: string } | undefined>;
  /** File checkpoints, when `enableFileCheckpointing` is on. */
  readonly checkpoints?: FileCheckpoints;
  /** The session's MCP servers (undefined when none are configured). */
  mcp(): McpManager | undefined;
  /** Replaces the servers added at run time (those from the options stay), starting a manager if needed. */
  setMcpServers(servers: Record<string, McpServerConfig>): Promise<McpSetServersResult>;
  /** Merges settings into the flag layer (see flag-settings.ts); throws, changing nothing, when refused. */
  applyFlagSettings(settings: Record<string, unknown>): void;
  /**
   * Marks a file as read, for Write and Edit, when it is unchanged since the host saw it (`mtime` in
   * whole ms). Resolves whether it was marked, and why not.
   */
  seedReadState(path: string, mtime: number): Promise<{ seeded: boolean; reason?: string }>;
  /** Asks per call for one MCP server's tools even in bypassPermissions (null: as the mode says). */
  setMcpPermissionModeOverride(serverName: string, mode: "default" | null): void;
  /**
   * Moves the running Bash command of call `toolUseId` (every one, without it) to the background: the
   * call answers at once, the command runs on as a background shell. Returns what moved. Throws when
   * `CLAUDE_CODE_DISABLE_BACKGROUND_TASKS` is set.
   */
  backgroundTasks(toolUseId?: string): Array<{ toolUseId: string; shell: BackgroundShell }>;
  /** The permission rules and directories in force, with their sources. */
  listPermissionRules(): PermissionRulesListing;
}

/** What the host of a runtime adds besides the options. */
export interface RuntimeHostOptions {
  /** Pauses the model's stream while the host lags behind (see paced-model-caller.ts). */
  pace?: StreamPace;
  /** How PostToolUse hooks see a tool's output (the SDK gives Claude Code's shapes). */
  toolResponse?: ToolResponseShape;
}

/** Builds the runtime. Throws for options that cannot work (an unknown tool name, a bad model id, a bad rule). */
export function createRuntime(
  options: SessionOptions,
  emit: (event: AgentEvent) => void,
  host: RuntimeHostOptions = {},
): Runtime {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  let sessionId = options.sessionId ?? randomUUID();
  let binding: SessionBinding | undefined;
  const controller = options.abortController ?? new AbortController();
  if (options.signal) {
    const outer = options.signal;
    if (outer.aborted) controller.abort();
    else outer.addEventListener("abort", () => controller.abort(), { once: true });
  }
  // What outlives a run and what every service reads, made first: nothing reaches into the loop's config.
  const state = createAgentState();
  const session = createLoopSession();
  const toolState = createToolSessionState();
  // The environment in force: the options' one, plus what the flag settings layer adds mid-session.
  let sessionEnv = env;
  const report = (message: string) => emit({ type: "warning", message });
  // Said once the session starts: the host is not listening yet while the runtime is being built.
  const startupWarnings: string[] = [];
  const providers = createSessionProviders(options, env, report, (message) => startupWarnings.push(message));
  const { registry, catalog, configuredModel, callModel, costOf } = providers;
  let modelOverride: string | undefined;
  // A slash command's `model`, for the turn it starts only.
  let turnModel: string | undefined;
  const currentModel = () => modelOverride ?? configuredModel;

  // The sandbox and confinement read the directories the permission engine (built after the tools) owns.
  const sandboxing = createSessionSandboxing(options, { cwd, env }, () => permissions.directories, report);
  const { managed, shellStartupFiles, sandbox, confinement } = sandboxing;
  const { smallFastModel } = providers;
  const hooks = createSessionHooks({
    hooks: options.hooks,
    cwd,
    getSessionId: () => sessionId,
    getTranscriptPath: () => binding?.transcriptPath ?? "",
    getPermissionMode: () => permissions.mode,
    report,
    // The flag settings layer may add variables while the session runs.
    get env() {
      return sessionEnv;
    },
    managedHooksOnly: managed?.managedHooksOnly,
    emitHookEvents: options.includeHookEvents ? emit : undefined,
  });
  // The Task tool reaches the session through this, when a subagent starts.
  const subagents = createSubagentHost({
    config: () => loopConfig,
    session,
    tools: () => tools.current().filter((t) => t !== tools.taskTool),
    hooks,
    memory: () => memory?.files,
    openChildTranscript:
      options.persistSession === false && !options.sessionStore
        ? undefined
        : async (agentId) => {
            const child = await openSession({
              cwd,
              model: currentModel(),
              sessionId: `${sessionId}.agent-${agentId}`,
              sessionStore: options.sessionStore,
              goatHome: env.GOAT_HOME,
              costOf,
              onWarning: report,
            });
            return { onMessage: child.recordMessage, close: child.close };
          },
  });
  const tools = createSessionTools(
    options,
    cwd,
    () => subagents.parent(),
    { sandbox, confinement },
    {
      // A host on this machine or a private network needs a rule naming it, such as WebFetch(domain:localhost).
      hostAllowed: (host) => permissions.allowsByNamedRule("WebFetch", { url: `http://${host}/` }),
      smallModel:
        smallFastModel === undefined
          ? undefined
          : createSmallModel(smallFastModel, () => ({
              callModel,
              session,
              costOf,
              contextWindowOf: providers.contextWindowOf,
              maxOutputTokensOf: providers.maxOutputTokensOf,
            })),
    },
    // A used skill's allowed-tools become session allow rules: below deny and ask rules, hooks and
    // plan mode, as an "always allow" answer is.
    (name, skill) => {
      for (const rule of skill.allowedTools ?? []) {
        try {
          const value = parseRuleValue(rule);
          permissions.applyUpdates([
            { type: "addRules", rules: [value], behavior: "allow", destination: "session" },
          ]);
        } catch (error) {
          report(
            `Skill "${name}": allowed-tools rule ${JSON.stringify(rule)} is not used: ${(error as Error).message}`,
          );
        }
      }
    },
  );
  // A tool run outside the loop (the permission prompt tool, a command's `!` line) gets the context the
  // loop would give it. Called only once the session runs, when the loop's config exists.
  const outsideToolContext = (
    signal: AbortSignal,
    toolUseId: string,
    confinement?: ToolContext["confinement"],
  ): ToolContext => ({
    signal,
    cwd,
    sessionId,
    toolUseId,
    state: toolState,
    env: sessionEnv,
    ...(confinement ? { confinement } : {}),
    fileScope: loopConfig.fileScope,
    onUpdate: () => {},
  });
  // permissionPromptToolName: a tool of the session answers what canUseTool would (checked: not both).
  const promptTool = () =>
    options.permissionPromptToolName === undefined
      ? undefined
      : permissionPromptToolCallback(options.permissionPromptToolName, {
          tools: () => tools.current(),
          context: outsideToolContext,
        });
  const permissions = createSessionPermissions(options, cwd, {
    sandboxing,
    bashSandboxed: tools.bashSandboxed,
    hooks: () => hooks.runner,
    promptTool,
    report,
  });

  // Bash checks read command lines with a WASM grammar, whose load costs about 0.1-0.2 s of CPU. It
  // starts when the model starts writing a Bash call, so it overlaps the streaming of the call's input
  // and a session that never calls Bash never pays for it (a one-shot `goat -p` answering in text
  // finished 35 ms sooner and used 60 ms less CPU). Not when Bash is off or bypassPermissions allows all.
  const loopEmit =
    options.permissionMode !== "bypassPermissions" && tools.staticTools.some((t) => t.name === "Bash")
      ? loadGrammarOnBashCall(emit)
      : emit;

  // Set at start() when `outputFormat` is given (compiling the schema loads the validator).
  let structured: StructuredOutput | undefined;
  const withStructured = memoizeLast((list: Tool[], extra: Tool | undefined) =>
    extra ? [...list, extra] : list,
  );
  const checkpoints = options.enableFileCheckpointing ? createFileCheckpoints() : undefined;
  // With checkpoints on, a file edit that is allowed to run first has the file kept.
  const checkpointing = (gate: NonNullable<LoopConfig["beforeToolCall"]>): LoopConfig["beforeToolCall"] =>
    checkpoints
      ? async (info) => {
          const decision = await gate(info);
          if (decision.action === "run")
            await checkpoints.beforeToolRuns(info.tool.name, decision.input, cwd);
          return decision;
        }
      : gate;
  const steering: AgentMessage[] = [];
  let steeringUrgent = false;
  const summarizer =
    options.compactor ??
    createLlmCompactor({
      // The summary call is paid for like any other: priced into the session's ledger.
      callModel: meteredModelCaller(callModel, () => ({
        session,
        costOf,
        contextWindowOf: providers.contextWindowOf,
        maxOutputTokensOf: providers.maxOutputTokensOf,
      })),
      maxSummaryTokens: Math.min(8192, catalog.get(configuredModel)?.maxOutputTokens ?? 8192),
      onRetry: (info) => emit({ type: "retry", ...info }),
    });
  const compact = hooks.wrapCompactor(summarizer, (outcome, trigger) =>
    binding?.recordCompaction({
      trigger,
      preTokens: outcome.preTokens,
      postTokens: outcome.postTokens,
      summary: outcome.summary,
      kept: outcome.messages.filter((m) => m.role !== "custom"),
    }),
  );

  const maxTokens =
    options.maxTokens ?? Math.min(32_000, catalog.get(configuredModel)?.maxOutputTokens ?? 8192);
  const reasoning = createSessionReasoning(
    {
      thinking: options.thinking,
      effort: options.effort,
      maxThinkingTokens: options.maxThinkingTokens,
      maxTokens,
    },
    catalog,
    report,
  );
  const gate = createBeforeToolCall(hooks.runner, permissions, report);
  const afterHooks = createAfterToolCall(hooks.runner, report, host.toolResponse);
  const memory = startSessionMemory(options, cwd, env, {
    atStart: (message) => startupWarnings.push(message),
    later: report,
  });
  const loopConfig: LoopConfig = {
    // A resumed or continued session takes its transcript's id at start().
    get sessionId() {
      return sessionId;
    },
    cwd,
    getModel: () => turnModel ?? currentModel(),
    // Only the session's own turns are paced: a summary or a small-model call is not the host's stream.
    callModel: host.pace ? pacedModelCaller(callModel, host.pace) : callModel,
    systemPrompt: resolveSystemPrompt(
      options.systemPrompt,
      { cwd, tools: tools.staticTools.map((t) => t.name) },
      memory?.files,
    ),
    get tools() {
      return withStructured(tools.current(), structured?.tool);
    },
    maxTurns: options.maxTurns,
    maxBudgetUsd: options.maxBudgetUsd,
    maxTokens,
    temperature: options.temperature,
    stopSequences: options.stopSequences,
    getReasoning: (model) => reasoning.forModel(model),
    stopWhen: [
      ...(options.stopWhen === undefined ? [] : [options.stopWhen].flat()),
      ...(options.outputFormat ? [() => structured?.done() === true] : []),
    ],
    transformContext: options.transformContext,
    convertToLlm: options.convertToLlm,
    getSteeringMessages: async () => {
      const fromOption = (await options.getSteeringMessages?.()) ?? [];
      const queued = steering.splice(0);
      steeringUrgent = false;
      return [...queued, ...fromOption];
    },
    steeringInterruptsTools: () => steeringUrgent,
    getFollowUpMessages: options.getFollowUpMessages,
    costOf,
    contextWindowOf: providers.contextWindowOf,
    maxOutputTokensOf: providers.maxOutputTokensOf,
    toolConcurrency: options.toolConcurrency,
    orderedToolStarts: options.orderedToolStarts,
    toolTimeoutOf: toolTimeouts(options, tools.staticTools),
    // The SDK user messages carry Claude Code's tool output shapes (tool_use_result), which need them.
    wantsFullDetails: () => true,
    // Read, Write, Edit and NotebookEdit re-check a path that goes through a symbolic link when they open
    // it: the link may have changed since the permission check. bypassPermissions confines nothing.
    fileScope: () =>
      permissions.mode === "bypassPermissions"
        ? undefined
        : {
            directories: permissions.directories,
            protectedReason: (real) => protectedPathReason({ lexical: real, real }, shellStartupFiles),
          },
    compact,
    beforeToolCall: checkpointing(gate),
    afterToolCall: memory?.nested ? withNestedMemory(afterHooks, memory.nested) : afterHooks,
    onStop: async (signal) => {
      // Asked for structured output and not given it: the model is told to call the tool first.
      const nudge = structured?.nudge();
      return nudge ? { continueWith: nudge } : hooks.onStop(session.messages, signal);
    },
    onMessage: (message) => binding?.recordMessage(message),
    persistBarrier: async () => {
      await binding?.flush().catch(() => {
        // A failed write is reported once, at the end of the session; tools still run.
      });
    },
    toolState,
    // The flag settings layer may add variables while the session runs.
    get env() {
      return sessionEnv;
    },
    state,
    emit: loopEmit,
  };

  const info = createHostInfo({
    options,
    env,
    registry,
    providerSpecs: providers.providerSpecs,
    catalog,
    currentModel,
    hasTaskTool: tools.taskTool !== undefined,
    config: () => loopConfig,
    session,
    maxOutputTokens: maxTokens,
  });

  // What a `/command` prompt's `!` lines and `@` files go through: the model's own gate.
  const commandContext = (): CommandExpansionContext => ({
    cwd,
    directories: () => permissions.directories,
    bashTool: () => tools.current().find((t) => t.name === "Bash"),
    gate: async (call, allowedTools) =>
      gate(
        call,
        (await allowedToolsApprove(allowedTools, call.input, cwd, call.signal))
          ? "the slash command's allowed-tools"
          : undefined,
      ),
    mayRead: async (path, signal) =>
      (
        await permissions.decide({
          toolName: "Read",
          input: { file_path: path },
          sideEffect: "read",
          toolUseID: `slash-command-${randomUUID()}`,
          signal,
        })
      ).behavior === "allow",
    toolContext: (toolUseId, signal, confinement) => outsideToolContext(signal, toolUseId, confinement),
    warn: report,
  });

  const debugLog = createDebugLog({ debug: options.debug, debugFile: options.debugFile, env });

  const checkModel = providers.checkModel;
  /** The model's full id, once `checkModel` accepts it (it throws otherwise). */
  const usableModel = (model: string) => {
    checkModel(model);
    return expandModelAlias(model);
  };
  const setModel = (model: string | undefined) => {
    if (model !== undefined) checkModel(model);
    modelOverride = model === undefined ? undefined : expandModelAlias(model);
    binding?.recordModelChange(model ?? configuredModel);
  };
  const configuredThinking =
    options.thinking ??
    (options.maxThinkingTokens
      ? { type: "enabled" as const, budgetTokens: options.maxThinkingTokens }
      : undefined);
  const flagSettings = createFlagSettings({
    checkModel,
    setModel,
    setFallbackModel: providers.setFallbackModel,
    setEffort: (effort) => reasoning.setEffort(effort),
    setThinking: (thinking) => reasoning.setThinking(thinking ?? configuredThinking),
    permissions,
    setFlagHooks: (flagHooks) => hooks.runner.setFlagHooks(flagHooks),
    setFlagEnv: (flagEnv) => {
      sessionEnv = flagEnv ? { ...env, ...flagEnv } : env;
    },
  });

  return {
    signal: controller.signal,
    checkpoints,
    info,
    async stopTask(taskId) {
      const stopped = subagents.stop(taskId);
      if (stopped) return stopped;
      const shell = getBackgroundShell(toolState, taskId);
      if (shell && shell.status === "running") {
        await killBackgroundShell(shell);
        return {};
      }
      return undefined;
    },
    state,
    session,
    loopConfig,
    get sessionId() {
      return sessionId;
    },
    messageUuid: (message) => binding?.entryUuid(message),
    async start() {
      if (managed && managed.dropped.length > 0) {
        report(`Managed settings that would widen access were left out: ${managed.dropped.join(", ")}`);
      }
      for (const message of startupWarnings.splice(0)) report(message);
      // Whether confinement runs here is found while the session opens (once per process), so
      // system/init can say it; the `goat` command shows it, a library host reads the field.
      const confinementChecked = tools.staticTools.some((t) => t.name === "Bash")
        ? confinement.check()
        : undefined;
      binding = await openSession({
        cwd,
        model: configuredModel,
        sessionId,
        resume: options.resume,
        continue: options.continue,
        forkSession: options.forkSession,
        resumeSessionAt: options.resumeSessionAt,
        persistSession: options.persistSession,
        sessionStore: options.sessionStore,
        goatHome: env.GOAT_HOME,
        costOf,
        onWarning: report,
      });
      sessionId = binding.sessionId;
      session.messages = binding.messages;
      session.priorCostUsd = binding.priorCostUsd;
      // Servers connect in parallel; the first model call waits for them only up to a bound.
      await tools.startMcp(controller.signal, options.mcpStartupTimeoutMs ?? 5_000);
      if (options.outputFormat) structured = await createStructuredOutput(options.outputFormat);
      await hooks.sessionStart(binding.resumed ? "resume" : "startup", configuredModel, controller.signal);
      await confinementChecked;
    },
    initInfo: () => ({
      sessionId,
      cwd,
      model: currentModel(),
      tools: loopConfig.tools.map((t) => t.name),
      mcpServers: (tools.mcp()?.status() ?? []).map(({ name, status }) => ({ name, status })),
      // The Task tool offers the general-purpose agent when no agents are defined (an empty record too).
      agents: tools.taskTool ? info.agents().map((a) => a.name) : undefined,
      permissionMode: permissions.mode,
      slashCommands: info.commands().map((c) => c.name),
      apiKeySource: info.account().apiKeySource,
      confinement: confinement.support.ok
        ? { launcher: confinement.support.launcher }
        : { problem: confinement.support.problem },
      skills: tools.skills,
      plugins: options.loadedPlugins?.plugins ?? [],
      ...(options.loadedPlugins?.errors.length ? { pluginErrors: options.loadedPlugins.errors } : {}),
    }),
    beforeRun: async (input, signal) => {
      structured?.reset();
      turnModel = options.slashCommands
        ? commandTurnModel(input, options.slashCommands, usableModel, report)
        : undefined;
      const expanded = options.slashCommands
        ? await expandCommandInput(input, options.slashCommands, commandContext(), signal)
        : input;
      return hooks.submitPrompts(expanded, signal);
    },
    structuredVerdict: () => structured?.verdict(),
    recordRun: (record) => {
      turnModel = undefined;
      binding?.recordResult(record);
    },
    async dispose(lastExit) {
      try {
        await hooks.sessionEnd(lastExit === "aborted" ? "abort" : "other");
      } finally {
        // The session's providers were made for it: their kept-alive sockets (and the last request
        // each holds) would otherwise live until the server hangs up, about 30 KB a finished session.
        registry.close();
        await disposeToolSessionState(toolState);
        await tools.close();
        await debugLog?.close();
        await binding?.close().catch((error) => {
          report(
            `The session transcript could not be written: ${error instanceof Error ? error.message : String(error)}`,
          );
        });
      }
    },
    abort: () => controller.abort(),
    setModel,
    applyFlagSettings: (settings) => flagSettings.apply(settings),
    seedReadState: (path, mtime) => seedFileSnapshot(toolState, resolveToolPath(path, cwd), mtime),
    setMcpPermissionModeOverride(serverName, mode) {
      permissions.setToolModeOverride(mcpToolName(serverName, ""), mode);
    },
    listPermissionRules: () => permissions.listRules(),
    backgroundTasks(toolUseId) {
      const off = sessionEnv.CLAUDE_CODE_DISABLE_BACKGROUND_TASKS;
      if (off && off !== "0" && off !== "false") {
        throw new GoatError(
          "Background tasks are disabled for this session (CLAUDE_CODE_DISABLE_BACKGROUND_TASKS).",
          { code: "background_tasks_disabled" },
        );
      }
      return moveForegroundTasks(toolState, toolUseId).flatMap(({ toolUseId: id, shellId }) => {
        const shell = getBackgroundShell(toolState, shellId);
        return shell ? [{ toolUseId: id, shell }] : [];
      });
    },
    setPermissionMode(mode) {
      permissions.setMode(mode);
    },
    setThinkingBudget(tokens, display) {
      reasoning.setThinkingBudget(tokens, display);
    },
    steer(message, interruptTools) {
      steering.push(message);
      if (interruptTools) steeringUrgent = true;
    },
    async compactNow(instructions) {
      // The loop's own compaction path, asked for by the host: same hooks, boundary and event.
      try {
        await compactSession(loopConfig, session, {
          trigger: "manual",
          signal: controller.signal,
          instructions,
        });
      } finally {
        state.set("idle");
      }
    },
    mcp: () => tools.mcp(),
    setMcpServers: (servers) => tools.setMcpServers(servers, controller.signal),
    debugTrace(event) {
      debugLog?.(event);
    },
  };
}

/** Caches `f`'s answer for the last arguments, so an unchanged tool list stays the same array. */
function memoizeLast<A, B, R>(f: (a: A, b: B) => R): (a: A, b: B) => R {
  let last: { a: A; b: B; r: R } | undefined;
  return (a, b) => {
    if (!last || last.a !== a || last.b !== b) last = { a, b, r: f(a, b) };
    return last.r;
  };
}

/** The default time limit of a custom or MCP tool call: generous, yet a hung call ends. */
export const DEFAULT_TOOL_TIMEOUT_MS = 10 * 60_000;

/**
 * Each tool's time limit: its own `timeoutMs` (an MCP tool's comes from its server's config), else
 * `toolTimeoutMs` (default 10 minutes) for custom and MCP tools; built-in tools keep their own rules.
 */
function toolTimeouts(
  options: SessionOptions,
  staticTools: readonly Tool[],
): (tool: Tool) => number | undefined {
  const fallback = options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  if (typeof fallback !== "number" || !Number.isFinite(fallback) || fallback < 0) {
    throw new InvalidOptionError(
      "toolTimeoutMs",
      `toolTimeoutMs must be a number of milliseconds ≥ 0 (0: no limit), got ${String(fallback)}`,
    );
  }
  const own = new Set(Array.isArray(options.tools) ? options.tools.filter((t) => typeof t !== "string") : []);
  const builtIn = new Set(staticTools.filter((t) => !own.has(t)));
  return (tool) => tool.timeoutMs ?? (builtIn.has(tool) ? undefined : fallback);
}

/**
 * Passes the loop's events on, and starts loading the shell grammar at the first Bash call the model
 * starts to write (the check of that call waits for the load if it is not done by then).
 */
function loadGrammarOnBashCall(emit: (event: AgentEvent) => void): (event: AgentEvent) => void {
  let started = false;
  return (event) => {
    if (
      !started &&
      event.type === "message_update" &&
      event.event.type === "toolcall_start" &&
      event.event.name === "Bash"
    ) {
      started = true;
      preloadShellParser();
    }
    emit(event);
  };
}
