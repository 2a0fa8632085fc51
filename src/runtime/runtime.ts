/**
 * The runtime of one session: turns `SessionOptions` into the loop's config and owns what outlives a
 * single run — the history, the provider registry, the tools' session state, the agent state, the
 * controls (`setModel`, `steer`, …) and the start and end of the session.
 *
 * `buildServices` (runtime-services.ts) builds the session's services, each by its own factory from
 * those built before it; `createRuntime` gives the host its controls over them.
 */
import { GoatError } from "../errors.js";
import { compactSession } from "../loop/compact-session.js";
import type { LoopSession } from "../loop/context.js";
import type { AgentEvent, AgentMessage, ExitReason } from "../loop/events.js";
import type { LoopConfig } from "../loop/loop-config.js";
import type { MutableAgentState } from "../loop/state.js";
import { mcpToolName } from "../mcp/tool-adapter.js";
import type { McpManager, McpServerConfig, McpSetServersResult } from "../mcp/types.js";
import type { PermissionRulesListing } from "../permissions/rule-listing.js";
import type { PermissionMode } from "../permissions/types.js";
import { type BackgroundShell, getBackgroundShell, killBackgroundShell } from "../tools/background-shells.js";
import { seedFileSnapshot } from "../tools/file-state.js";
import { moveForegroundTasks } from "../tools/foreground-tasks.js";
import { resolveToolPath } from "../tools/paths.js";
import { disposeToolSessionState } from "../tools/types.js";
import { commandTurnModel, expandCommandInput } from "./custom-commands.js";
import type { FileCheckpoints } from "./file-checkpoints.js";
import type { HostInfo } from "./host-info.js";
import type { SessionOptions } from "./options.js";
import type { ThinkingDisplay } from "./reasoning.js";
import type { RuntimeCore } from "./runtime-core.js";
import { buildServices, type RuntimeHostOptions, type RuntimeServices } from "./runtime-services.js";
import type { RunRecord } from "./session-binding.js";
import type { SessionInitInfo } from "./session-init.js";
import type { StructuredVerdict } from "./structured-output.js";

export type { RuntimeHostOptions } from "./runtime-services.js";

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

/** Builds the runtime. Throws for options that cannot work (an unknown tool name, a bad model id, a bad rule). */
export function createRuntime(
  options: SessionOptions,
  emit: (event: AgentEvent) => void,
  host: RuntimeHostOptions = {},
): Runtime {
  const s = buildServices(options, emit, host);
  const { core, tools, permissions, reasoning } = s;
  return {
    signal: core.controller.signal,
    checkpoints: s.checkpoints,
    info: s.info,
    stopTask: (taskId) => stopTask(s, taskId),
    state: core.state,
    session: core.session,
    loopConfig: s.loopConfig,
    get sessionId() {
      return s.transcript.id;
    },
    messageUuid: (message) => s.transcript.binding?.entryUuid(message),
    start: () => startSession(s),
    initInfo: () => initInfo(s),
    beforeRun: (input, signal) => beforeRun(s, input, signal),
    structuredVerdict: () => s.structured.current()?.verdict(),
    recordRun: (record) => {
      s.models.setTurnModel(undefined);
      s.transcript.binding?.recordResult(record);
    },
    dispose: (lastExit) => disposeSession(s, lastExit),
    abort: () => core.controller.abort(),
    setModel: s.models.set,
    applyFlagSettings: (settings) => s.flagSettings.apply(settings),
    seedReadState: (path, mtime) => seedFileSnapshot(core.toolState, resolveToolPath(path, core.cwd), mtime),
    setMcpPermissionModeOverride(serverName, mode) {
      permissions.setToolModeOverride(mcpToolName(serverName, ""), mode);
    },
    listPermissionRules: () => permissions.listRules(),
    backgroundTasks: (toolUseId) => backgroundTasks(core, toolUseId),
    setPermissionMode(mode) {
      permissions.setMode(mode);
    },
    setThinkingBudget(tokens, display) {
      reasoning.setThinkingBudget(tokens, display);
    },
    steer: (message, interruptTools) => s.steering.push(message, interruptTools),
    async compactNow(instructions) {
      // The loop's own compaction path, asked for by the host: same hooks, boundary and event.
      try {
        await compactSession(s.loopConfig, core.session, {
          trigger: "manual",
          signal: core.controller.signal,
          instructions,
        });
      } finally {
        core.state.set("idle");
      }
    },
    mcp: () => tools.mcp(),
    setMcpServers: (servers) => tools.setMcpServers(servers, core.controller.signal),
    debugTrace(event) {
      s.debugLog?.(event);
    },
  };
}

/** Session start: the transcript opened (resume, continue, fork), MCP servers, SessionStart hooks. */
async function startSession(s: RuntimeServices): Promise<void> {
  const { core, tools, sandboxing } = s;
  const { options } = core;
  const { managed, confinement } = sandboxing;
  if (managed && managed.dropped.length > 0) {
    core.report(`Managed settings that would widen access were left out: ${managed.dropped.join(", ")}`);
  }
  core.flushStartupWarnings();
  // Whether confinement runs here is found while the session opens (once per process), so
  // system/init can say it; the `goat` command shows it, a library host reads the field.
  const confinementChecked = tools.staticTools.some((t) => t.name === "Bash")
    ? confinement.check()
    : undefined;
  const configuredModel = s.providers.configuredModel;
  const binding = await s.transcript.open(configuredModel);
  core.session.messages = binding.messages;
  core.session.priorCostUsd = binding.priorCostUsd;
  // Servers connect in parallel; the first model call waits for them only up to a bound.
  await tools.startMcp(core.controller.signal, options.mcpStartupTimeoutMs ?? 5_000);
  await s.structured.compile();
  await s.hooks.sessionStart(binding.resumed ? "resume" : "startup", configuredModel, core.controller.signal);
  await confinementChecked;
}

/** What the session says about itself as a run starts (`system/init`). */
function initInfo(s: RuntimeServices): SessionInitInfo {
  const { core, tools, info } = s;
  const { options } = core;
  const support = s.sandboxing.confinement.support;
  return {
    sessionId: s.transcript.id,
    cwd: core.cwd,
    model: s.models.current(),
    tools: s.loopConfig.tools.map((t) => t.name),
    mcpServers: (tools.mcp()?.status() ?? []).map(({ name, status }) => ({ name, status })),
    // The Task tool offers the general-purpose agent when no agents are defined (an empty record too).
    agents: tools.taskTool ? info.agents().map((a) => a.name) : undefined,
    permissionMode: s.permissions.mode,
    slashCommands: info.commands().map((c) => c.name),
    apiKeySource: info.account().apiKeySource,
    confinement: support.ok ? { launcher: support.launcher } : { problem: support.problem },
    skills: tools.skills,
    plugins: options.loadedPlugins?.plugins ?? [],
    ...(options.loadedPlugins?.errors.length ? { pluginErrors: options.loadedPlugins.errors } : {}),
  };
}

/** A run's input as the loop receives it: a `/command` expanded, then UserPromptSubmit hooks. */
async function beforeRun(
  s: RuntimeServices,
  input: AgentMessage[],
  signal: AbortSignal,
): Promise<AgentMessage[]> {
  const { slashCommands } = s.core.options;
  s.structured.current()?.reset();
  s.models.setTurnModel(
    slashCommands ? commandTurnModel(input, slashCommands, s.models.usable, s.core.report) : undefined,
  );
  const expanded = slashCommands ? await expandCommandInput(input, slashCommands, s.commands, signal) : input;
  return s.hooks.submitPrompts(expanded, signal);
}

/** Session end: SessionEnd hooks, then connections, tool state, MCP servers, debug log and transcript closed. */
async function disposeSession(s: RuntimeServices, lastExit: ExitReason | undefined): Promise<void> {
  const { core } = s;
  try {
    await s.hooks.sessionEnd(lastExit === "aborted" ? "abort" : "other");
  } finally {
    // The session's providers were made for it: their kept-alive sockets (and the last request
    // each holds) would otherwise live until the server hangs up, about 30 KB a finished session.
    s.providers.registry.close();
    await disposeToolSessionState(core.toolState);
    await s.tools.close();
    await s.debugLog?.close();
    await s.transcript.binding?.close().catch((error) => {
      core.report(
        `The session transcript could not be written: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  }
}

/** Stops a running subagent or background shell by id; what was stopped, or undefined. */
async function stopTask(s: RuntimeServices, taskId: string): Promise<{ toolUseId?: string } | undefined> {
  const stopped = s.subagents.stop(taskId);
  if (stopped) return stopped;
  const shell = getBackgroundShell(s.core.toolState, taskId);
  if (shell && shell.status === "running") {
    await killBackgroundShell(shell);
    return {};
  }
  return undefined;
}

/** Moves running Bash commands to the background (all, or call `toolUseId`'s); refused when disabled. */
function backgroundTasks(
  core: RuntimeCore,
  toolUseId: string | undefined,
): Array<{ toolUseId: string; shell: BackgroundShell }> {
  const off = core.sessionEnv().CLAUDE_CODE_DISABLE_BACKGROUND_TASKS;
  if (off && off !== "0" && off !== "false") {
    throw new GoatError(
      "Background tasks are disabled for this session (CLAUDE_CODE_DISABLE_BACKGROUND_TASKS).",
      {
        code: "background_tasks_disabled",
      },
    );
  }
  return moveForegroundTasks(core.toolState, toolUseId).flatMap(({ toolUseId: id, shellId }) => {
    const shell = getBackgroundShell(core.toolState, shellId);
    return shell ? [{ toolUseId: id, shell }] : [];
  });
}
