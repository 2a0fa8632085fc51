/**
 * The runtime of one session: turns `QueryOptions` into the loop's config and owns what outlives a
 * single run — the history, the provider registry, the tools' session state, the agent state, the
 * controls (`setModel`, `steer`, …) and the start and end of the session.
 */
import { randomUUID } from "node:crypto";
import { createLlmCompactor } from "../compaction/llm-compactor.js";
import { GoatError, InvalidOptionError } from "../errors.js";
import { accountOf } from "../llm/account.js";
import { createModelCatalog } from "../llm/catalog.js";
import { costAt, createPriceList, type PriceList } from "../llm/cost.js";
import { asksForLongContext, widenToLongContext } from "../llm/long-context.js";
import { createProviderRegistry, defaultModel, expandModelAlias, type ProviderSpec } from "../llm/resolve.js";
import type { Usage } from "../llm/types.js";
import { compactSession } from "../loop/compact-session.js";
import { createLoopSession, type LoopSession } from "../loop/context.js";
import type { AgentEvent, AgentMessage, ExitReason } from "../loop/events.js";
import type { LoopConfig } from "../loop/loop-config.js";
import { createModelCaller } from "../loop/model-caller.js";
import { createAgentState, type MutableAgentState } from "../loop/state.js";
import { mcpToolName } from "../mcp/tool-adapter.js";
import type { McpManager, McpServerConfig, McpSetServersResult } from "../mcp/types.js";
import { createPermissionEngine } from "../permissions/engine.js";
import { protectedPathReason } from "../permissions/protected-paths.js";
import type { PermissionRulesListing } from "../permissions/rule-listing.js";
import { parseRuleValue } from "../permissions/rule-parse.js";
import { preloadShellParser } from "../permissions/shell-parser.js";
import { createBashSandbox } from "../sandbox/bash-sandbox.js";
import { createConfinement } from "../sandbox/confinement.js";
import { startupFilesNamedBy } from "../sandbox/protected-names.js";
import { mergeSandboxSettings, resolveSandboxSettings } from "../sandbox/settings.js";
import { sessionManagedSettings } from "../settings/managed-file.js";
import { type BackgroundShell, getBackgroundShell, killBackgroundShell } from "../tools/background-shells.js";
import { seedFileSnapshot } from "../tools/file-state.js";
import { moveForegroundTasks } from "../tools/foreground-tasks.js";
import { resolveToolPath } from "../tools/paths.js";
import { createToolSessionState, disposeToolSessionState, type Tool } from "../tools/types.js";
import { CLAUDE_CODE_PROTOCOL_VERSION, GOAT_VERSION } from "../version.js";
import {
  allowedToolsApprove,
  type CommandExpansionContext,
  commandTurnModel,
  expandCommandInput,
} from "./custom-commands.js";
import { createDebugLog } from "./debug-log.js";
import { createFileCheckpoints, type FileCheckpoints } from "./file-checkpoints.js";
import { createFlagSettings } from "./flag-settings.js";
import { meteredModelCaller } from "./metered-caller.js";
import { withNestedMemory } from "./nested-memory.js";
import type { QueryOptions } from "./options.js";
import { permissionPromptToolCallback } from "./permission-prompt-tool.js";
import { createSessionReasoning, type ThinkingDisplay } from "./reasoning.js";
import type { PermissionModeName, SDKResultMessage, SDKSystemInitMessage } from "./sdk-messages.js";
import { openSession, type SessionBinding } from "./session-binding.js";
import { createSessionHooks } from "./session-hooks.js";
import {
  type AccountInfo,
  type AgentInfo,
  type ContextUsage,
  contextUsage,
  offeredAgents,
  offeredCommands,
  type SlashCommand,
  type SupportedModel,
  supportedModels,
} from "./session-info.js";
import { startSessionMemory } from "./session-memory.js";
import { createSessionTools } from "./session-tools.js";
import { createSmallModel, resolveSmallFastModel } from "./small-model.js";
import { createStructuredOutput, type StructuredOutput } from "./structured-output.js";
import type { SubagentParent } from "./subagents.js";
import { resolveSystemPrompt } from "./system-prompt.js";
import { createAfterToolCall, createBeforeToolCall, wrapCanUseTool } from "./tool-gate.js";

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
  initMessage(): SDKSystemInitMessage;
  /** Turns a run's input into what the loop receives (UserPromptSubmit hooks may add context). */
  beforeRun(input: AgentMessage[], signal: AbortSignal): Promise<AgentMessage[]>;
  /** The run's result as the host sees it (with `structured_output` when asked for); records it. */
  afterRun(result: SDKResultMessage): Promise<SDKResultMessage>;
  /** Session end: SessionEnd hooks, background shells killed. */
  dispose(lastExit: ExitReason | undefined): Promise<void>;
  abort(): void;
  setModel(model: string | undefined): void;
  setPermissionMode(mode: PermissionModeName): void;
  /** A fixed thinking budget (undefined: none); `display` as `SessionReasoning.setThinkingBudget`. */
  setThinkingBudget(tokens: number | undefined, display?: ThinkingDisplay | null): void;
  steer(message: AgentMessage, interruptTools: boolean): void;
  compactNow(instructions?: string): Promise<void>;
  debugTrace(event: AgentEvent): void;
  /** What the host can ask about the session (the Query's informational methods). */
  readonly info: {
    agents(): AgentInfo[];
    /** The slash commands a prompt may start with (`system/init`'s `slash_commands`). */
    commands(): SlashCommand[];
    models(): SupportedModel[];
    account(): AccountInfo;
    contextUsage(): ContextUsage;
  };
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

/** Builds the runtime. Throws for options that cannot work (an unknown tool name, a bad model id, a bad rule). */
export function createRuntime(options: QueryOptions, emit: (event: AgentEvent) => void): Runtime {
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
  const configuredModel = expandModelAlias(options.model ?? defaultModel(env));
  let modelOverride: string | undefined;
  // A slash command's `model`, for the turn it starts only.
  let turnModel: string | undefined;

  const providerSpecs: ProviderSpec[] = options.provider
    ? Array.isArray(options.provider)
      ? options.provider
      : [options.provider]
    : [];
  const registry = createProviderRegistry(providerSpecs, {
    env,
    timeouts: options.providerTimeouts,
    proxy: options.proxy,
    getApiKey: options.getApiKey,
    anthropicBetas: options.betas,
  });
  // Fail at start-up, not on the first call, when the model names no known provider.
  registry.resolve(configuredModel);
  const catalog = createModelCatalog(options.models ?? []);
  if (asksForLongContext(options.betas)) widenToLongContext(catalog, options.models ?? []);
  const report = (message: string) => emit({ type: "warning", message });
  const prices = createPriceList(catalog, options.modelPricing);
  const fallbackModel = options.fallbackModel && expandModelAlias(options.fallbackModel);
  if (options.maxBudgetUsd !== undefined) {
    for (const model of [configuredModel, fallbackModel]) if (model) assertPriced(model, prices);
  }
  const costOf = createCostOf(prices, report);

  // Managed (policy) settings tighten permissions, hooks and the sandbox; never loosen them.
  // The machine's file (/etc/claude-code/managed-settings.json) and the host's, both binding.
  const managed = sessionManagedSettings(options.managedSettings);
  const sandboxSettings = managed?.sandbox
    ? mergeSandboxSettings([options.sandbox ?? {}, managed.sandbox])
    : options.sandbox;
  // Built only when asked for: a session without the sandbox never loads or checks anything for it.
  // Checked even when off, so a typo in a safety setting is an error rather than ignored.
  // The files the shell sources before each Bash call (BASH_ENV, ENV): guarded like .bashrc.
  const shellStartupFiles = startupFilesNamedBy(env, cwd);
  const sandboxOn = sandboxSettings !== undefined && resolveSandboxSettings(sandboxSettings).enabled;
  const sandbox =
    sandboxOn && sandboxSettings
      ? createBashSandbox(sandboxSettings, {
          directories: () => permissions.directories,
          protectedFiles: shellStartupFiles,
        })
      : undefined;
  // Said once the session starts: the host is not listening yet while the runtime is being built.
  const startupWarnings: string[] = [];
  // Bash lines the engine allows on its own analysis run confined where a sandbox can start.
  const confinement = createConfinement({
    directories: () => permissions.directories,
    // Looked up where the session's commands are: on the PATH of its environment.
    envPath: env.PATH,
    protectedFiles: shellStartupFiles,
    // Said only when the sandbox fails after system/init claimed it (the machine changed mid-session).
    onUnavailable: (problem) =>
      report(`The sandbox cannot start here, so commands allowed without asking run unconfined: ${problem}`),
  });
  const smallFastModel = resolveSmallFastModel(options.smallFastModel, env, registry, (message) =>
    startupWarnings.push(message),
  );
  if (smallFastModel && options.maxBudgetUsd !== undefined) assertPriced(smallFastModel, prices);
  const tools = createSessionTools(
    options,
    cwd,
    () => subagentParent(),
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
              contextWindowOf: (model) => catalog.get(model)?.contextWindow,
              maxOutputTokensOf: (model) => catalog.get(model)?.maxOutputTokens,
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
  const hooks = createSessionHooks({
    hooks: options.hooks,
    cwd,
    getSessionId: () => sessionId,
    getTranscriptPath: () => binding?.transcriptPath ?? "",
    getPermissionMode: () => permissions.mode,
    report,
    // The flag settings layer may add variables while the session runs.
    get env() {
      return loopConfig.env ?? env;
    },
    managedHooksOnly: managed?.managedHooksOnly,
    emitHookEvents: options.includeHookEvents ? emit : undefined,
  });
  // permissionPromptToolName: a tool of the session answers what canUseTool would (checked: not both).
  const promptTool = () =>
    options.permissionPromptToolName === undefined
      ? undefined
      : permissionPromptToolCallback(options.permissionPromptToolName, {
          tools: () => tools.current(),
          context: (signal, toolUseId) => ({
            signal,
            cwd,
            sessionId,
            toolUseId,
            state: loopConfig.toolState,
            env: loopConfig.env ?? env,
            onUpdate: () => {},
          }),
        });
  const permissions = createPermissionEngine({
    cwd,
    mode: options.permissionMode ?? "default",
    allowedTools: options.allowedTools,
    disallowedTools: options.disallowedTools,
    settingsRules: options.permissionRules,
    additionalDirectories: options.additionalDirectories,
    allowDangerouslySkipPermissions: options.allowDangerouslySkipPermissions,
    shellStartupFiles,
    managed: managed?.permissions,
    wording: options.permissionWording,
    autoAllowSandboxedBash: sandbox && tools.bashSandboxed ? (input) => sandbox.autoAllows(input) : undefined,
    canUseTool: wrapCanUseTool(
      () => hooks.runner,
      options.permissionPrompts === "none" ? undefined : (options.canUseTool ?? promptTool()),
      report,
      options.permissionWording,
    ),
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
  const state = createAgentState();
  const session = createLoopSession();
  // Mutable: the flag settings layer may change the fallback model mid-session.
  const callerOptions = { retry: options.retry, fallbackModel };
  const callModel = createModelCaller(registry, callerOptions);
  const summarizer =
    options.compactor ??
    createLlmCompactor({
      // The summary call is paid for like any other: priced into the session's ledger.
      callModel: meteredModelCaller(callModel, () => ({
        session,
        costOf,
        contextWindowOf: (model) => catalog.get(model)?.contextWindow,
        maxOutputTokensOf: (model) => catalog.get(model)?.maxOutputTokens,
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
  const afterHooks = createAfterToolCall(hooks.runner, report);
  const memory = startSessionMemory(options, cwd, env, {
    atStart: (message) => startupWarnings.push(message),
    later: report,
  });
  const loopConfig: LoopConfig = {
    sessionId,
    cwd,
    getModel: () => turnModel ?? modelOverride ?? configuredModel,
    callModel,
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
    contextWindowOf: (model) => catalog.get(model)?.contextWindow,
    maxOutputTokensOf: (model) => catalog.get(model)?.maxOutputTokens,
    toolConcurrency: options.toolConcurrency,
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
    toolState: createToolSessionState(),
    env,
    state,
    emit: loopEmit,
  };

  // Running subagents by Task call id and by agent id, for stopTask().
  const runningTasks = new Map<string, { stop: () => void; toolUseId: string }>();
  const subagentParent = (): SubagentParent => ({
    config: loopConfig,
    session,
    memory: memory?.files,
    registerTask: (toolUseId, agentId, stop) => {
      const entry = { stop, toolUseId };
      runningTasks.set(toolUseId, entry);
      runningTasks.set(agentId, entry);
      return () => {
        runningTasks.delete(toolUseId);
        runningTasks.delete(agentId);
      };
    },
    tools: tools.current().filter((t) => t !== tools.taskTool),
    fireSubagentHook: async (event, fields, signal) => {
      if (event === "SubagentStart") await hooks.fire("SubagentStart", fields, signal);
      else
        await hooks.fire(
          "SubagentStop",
          { ...fields, agent_transcript_path: "", stop_hook_active: false },
          signal,
        );
    },
    openChildTranscript:
      options.persistSession === false && !options.sessionStore
        ? undefined
        : async (agentId) => {
            const child = await openSession({
              cwd,
              model: loopConfig.getModel(),
              sessionId: `${sessionId}.agent-${agentId}`,
              sessionStore: options.sessionStore,
              goatHome: env.GOAT_HOME,
              costOf,
              onWarning: report,
            });
            return { onMessage: child.recordMessage, close: child.close };
          },
  });

  const agentInfos = () => offeredAgents(tools.taskTool !== undefined, options.agents);
  const account = () =>
    accountOf(loopConfig.getModel(), {
      registry,
      providers: providerSpecs,
      getApiKey: options.getApiKey !== undefined,
      env,
    });

  const commandInfos = () => offeredCommands(options.slashCommands);
  const info: Runtime["info"] = {
    agents: agentInfos,
    commands: commandInfos,
    models: () => supportedModels(catalog),
    account,
    contextUsage: () => {
      const model = loopConfig.getModel();
      return contextUsage({
        model,
        systemPrompt: loopConfig.systemPrompt,
        tools: loopConfig.tools,
        session,
        contextWindow: catalog.get(model)?.contextWindow,
        maxOutputTokens: maxTokens,
        agents: agentInfos(),
      });
    },
  };

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
    toolContext: (toolUseId, signal, confinement) => ({
      signal,
      cwd,
      sessionId,
      toolUseId,
      state: loopConfig.toolState,
      env: loopConfig.env ?? env,
      ...(confinement ? { confinement } : {}),
      fileScope: loopConfig.fileScope,
      onUpdate: () => {},
    }),
    warn: report,
  });

  const debugLog = createDebugLog({ debug: options.debug, debugFile: options.debugFile, env });

  const checkModel = (model: string) => {
    registry.resolve(model);
    if (options.maxBudgetUsd !== undefined) assertPriced(expandModelAlias(model), prices);
  };
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
    setFallbackModel: (model) => {
      callerOptions.fallbackModel = model === undefined ? fallbackModel : expandModelAlias(model);
    },
    setEffort: (effort) => reasoning.setEffort(effort),
    setThinking: (thinking) => reasoning.setThinking(thinking ?? configuredThinking),
    permissions,
    setFlagHooks: (flagHooks) => hooks.runner.setFlagHooks(flagHooks),
    setFlagEnv: (flagEnv) => {
      loopConfig.env = flagEnv ? { ...env, ...flagEnv } : env;
    },
  });

  return {
    signal: controller.signal,
    checkpoints,
    info,
    async stopTask(taskId) {
      const task = runningTasks.get(taskId);
      if (task) {
        task.stop();
        return { toolUseId: task.toolUseId };
      }
      const shell = getBackgroundShell(loopConfig.toolState, taskId);
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
      loopConfig.sessionId = sessionId;
      session.messages = binding.messages;
      session.priorCostUsd = binding.priorCostUsd;
      // Servers connect in parallel; the first model call waits for them only up to a bound.
      await tools.startMcp(controller.signal, options.mcpStartupTimeoutMs ?? 5_000);
      if (options.outputFormat) structured = await createStructuredOutput(options.outputFormat);
      await hooks.sessionStart(binding.resumed ? "resume" : "startup", configuredModel, controller.signal);
      await confinementChecked;
    },
    initMessage: () => ({
      type: "system",
      subtype: "init",
      uuid: randomUUID(),
      session_id: sessionId,
      cwd,
      model: loopConfig.getModel(),
      tools: loopConfig.tools.map((t) => t.name),
      mcp_servers: (tools.mcp()?.status() ?? []).map(({ name, status }) => ({ name, status })),
      // The Task tool offers the general-purpose agent when no agents are defined (an empty record too).
      agents: tools.taskTool ? agentInfos().map((a) => a.name) : undefined,
      permissionMode: permissions.mode,
      slash_commands: commandInfos().map((c) => c.name),
      apiKeySource: account().apiKeySource,
      claude_code_version: CLAUDE_CODE_PROTOCOL_VERSION,
      goat_version: GOAT_VERSION,
      ...(confinement.support.ok
        ? { goat_confinement: confinement.support.launcher }
        : { goat_confinement: "none", goat_confinement_problem: confinement.support.problem }),
      output_style: "default",
      skills: tools.skills,
      plugins: options.loadedPlugins?.plugins ?? [],
      ...(options.loadedPlugins?.errors.length ? { plugin_errors: options.loadedPlugins.errors } : {}),
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
    async afterRun(outcome) {
      turnModel = undefined;
      const result = structured ? structured.finish(outcome) : outcome;
      binding?.recordResult(result);
      return result;
    },
    async dispose(lastExit) {
      try {
        await hooks.sessionEnd(lastExit === "aborted" ? "abort" : "other");
      } finally {
        // The session's providers were made for it: their kept-alive sockets (and the last request
        // each holds) would otherwise live until the server hangs up, about 30 KB a finished session.
        registry.close();
        await disposeToolSessionState(loopConfig.toolState);
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
    seedReadState: (path, mtime) => seedFileSnapshot(loopConfig.toolState, resolveToolPath(path, cwd), mtime),
    setMcpPermissionModeOverride(serverName, mode) {
      permissions.setToolModeOverride(mcpToolName(serverName, ""), mode);
    },
    listPermissionRules: () => permissions.listRules(),
    backgroundTasks(toolUseId) {
      const off = (loopConfig.env ?? env).CLAUDE_CODE_DISABLE_BACKGROUND_TASKS;
      if (off && off !== "0" && off !== "false") {
        throw new GoatError(
          "Background tasks are disabled for this session (CLAUDE_CODE_DISABLE_BACKGROUND_TASKS).",
          { code: "background_tasks_disabled" },
        );
      }
      return moveForegroundTasks(loopConfig.toolState, toolUseId).flatMap(({ toolUseId: id, shellId }) => {
        const shell = getBackgroundShell(loopConfig.toolState, shellId);
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

/** Refuses a budget that could never fire: the model's calls would all count as $0. */
function assertPriced(model: string, prices: PriceList): void {
  if (prices.priceOf(model)) return;
  throw new InvalidOptionError(
    "maxBudgetUsd",
    `maxBudgetUsd is set, but no price is known for the model "${model}", so the budget could never be enforced. Give its price in USD per million tokens: modelPricing: { "${model}": { input: 3, output: 15 } } (the query() option, or the key of that name in the goat settings file), or register the model in models.`,
  );
}

/** Prices each call; a model with no price counts as $0 and is reported once per session. */
function createCostOf(
  prices: PriceList,
  report: (message: string) => void,
): (model: string, usage: Usage) => number {
  const unpriced = new Set<string>();
  return (model, usage) => {
    const price = prices.priceOf(model);
    if (price) return costAt(usage, price);
    // One model goes by its bare id and by its `provider/` id (a result's, the transcript's): one report.
    const id = model.trim().toLowerCase();
    const bare = id.slice(id.indexOf("/") + 1);
    if (!unpriced.has(bare)) {
      unpriced.add(bare);
      report(
        `No price is known for the model "${model}": its calls count as $0 in total_cost_usd. Give one with modelPricing: { "${model}": { input, output } } (USD per million tokens).`,
      );
    }
    return 0;
  };
}

/** The default time limit of a custom or MCP tool call: generous, yet a hung call ends. */
export const DEFAULT_TOOL_TIMEOUT_MS = 10 * 60_000;

/**
 * Each tool's time limit: its own `timeoutMs` (an MCP tool's comes from its server's config), else
 * `toolTimeoutMs` (default 10 minutes) for custom and MCP tools; built-in tools keep their own rules.
 */
function toolTimeouts(
  options: QueryOptions,
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
