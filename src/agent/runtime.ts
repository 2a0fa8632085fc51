/**
 * The runtime of one session: turns `QueryOptions` into the loop's config and owns what outlives a
 * single run — the history, the provider registry, the tools' session state, the agent state, the
 * controls (`setModel`, `steer`, …) and the start and end of the session.
 */
import { randomUUID } from "node:crypto";
import { appendFileSync } from "node:fs";
import { createLlmCompactor } from "../compaction/llm-compactor.js";
import { createHookRunner } from "../hooks/runner.js";
import type { HookEvent, HookEventFields, HooksConfig, SettingsHooks } from "../hooks/types.js";
import { createModelCatalog } from "../llm/catalog.js";
import { computeCost } from "../llm/cost.js";
import { createProviderRegistry, type ProviderSpec } from "../llm/resolve.js";
import { textOf } from "../llm/types.js";
import type { McpManager, McpServerConfig, McpSetServersResult } from "../mcp/types.js";
import { createPermissionEngine } from "../permissions/engine.js";
import { resolveTools } from "../tools/builtin.js";
import { createToolRegistry } from "../tools/registry.js";
import { createToolSessionState, disposeToolSessionState } from "../tools/types.js";
import { createLoopSession, type LoopSession } from "./context.js";
import type { AgentEvent, AgentMessage, ExitReason } from "./events.js";
import type { Compactor, LoopConfig } from "./loop-config.js";
import { createModelCaller } from "./model-caller.js";
import type { QueryOptions } from "./options.js";
import type { PermissionModeName, SDKResultMessage, SDKSystemInitMessage } from "./sdk-messages.js";
import { openSession, type SessionBinding } from "./session-binding.js";
import { createAgentState, type MutableAgentState } from "./state.js";
import { createTaskTool, type SubagentParent } from "./subagents.js";
import { resolveSystemPrompt } from "./system-prompt.js";
import { createAfterToolCall, createBeforeToolCall, wrapCanUseTool } from "./tool-gate.js";
import { GOAT_VERSION } from "./version.js";

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
  initMessage(): SDKSystemInitMessage;
  /** Turns a run's input into what the loop receives (UserPromptSubmit hooks may add context). */
  beforeRun(input: AgentMessage[], signal: AbortSignal): Promise<AgentMessage[]>;
  afterRun(result: SDKResultMessage): Promise<void>;
  /** Session end: SessionEnd hooks, background shells killed. */
  dispose(lastExit: ExitReason | undefined): Promise<void>;
  abort(): void;
  setModel(model: string | undefined): void;
  setPermissionMode(mode: PermissionModeName): void;
  setThinkingBudget(tokens: number | undefined): void;
  steer(message: AgentMessage, interruptTools: boolean): void;
  compactNow(instructions?: string): Promise<void>;
  debugTrace(event: AgentEvent): void;
  /** The session's MCP servers (undefined when none are configured). */
  mcp(): McpManager | undefined;
  /** Replaces the servers added at run time (those from the options stay), starting a manager if needed. */
  setMcpServers(servers: Record<string, McpServerConfig>): Promise<McpSetServersResult>;
}

/** Picks the default model: `GOAT_MODEL`, else the provider whose key is set, else Anthropic. */
export function defaultModel(env: Record<string, string | undefined>): string {
  if (env.GOAT_MODEL) return env.GOAT_MODEL;
  if (!env.ANTHROPIC_API_KEY && env.OPENAI_API_KEY) return "openai/gpt-4.1";
  return "anthropic/claude-sonnet-4-5";
}

/** Builds the runtime. Throws for options that cannot work (an unknown tool name, a bad model id). */
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
  const configuredModel = options.model ?? defaultModel(env);
  let modelOverride: string | undefined;
  let thinkingBudget = options.maxThinkingTokens;

  const providerSpecs: ProviderSpec[] = options.provider
    ? Array.isArray(options.provider)
      ? options.provider
      : [options.provider]
    : [];
  const registry = createProviderRegistry(
    options.getApiKey
      ? providerSpecs.map((s) => ("stream" in s ? s : { getApiKey: options.getApiKey, ...s }))
      : providerSpecs,
  );
  // Fail at start-up, not on the first call, when the model names no known provider.
  registry.resolve(configuredModel);
  const catalog = createModelCatalog(options.models ?? []);
  // `disallowedTools` removes plain names from the model's view; pattern rules go to permissions.
  // `Task` is built by the runtime (it needs the session); every other name is a built-in tool.
  const wantsTask =
    options.tools === undefined || options.tools.includes("Task") || options.agents !== undefined;
  const ownTools = createToolRegistry(resolveTools(options.tools?.filter((t) => t !== "Task")))
    .filter({ disallowedTools: options.disallowedTools })
    .list();
  const disallowed = new Set(options.disallowedTools ?? []);
  let mcp: McpManager | undefined;
  const taskTool =
    wantsTask && !disallowed.has("Task")
      ? createTaskTool(options.agents ?? {}, () => subagentParent())
      : undefined;
  const staticTools = taskTool ? [...ownTools, taskTool] : ownTools;
  /** The tools of the next model call: MCP servers may connect, fail or change their tools mid-session. */
  const currentTools = () =>
    mcp ? [...staticTools, ...mcp.tools().filter((t) => !disallowed.has(t.name))] : staticTools;
  const reportHookProblem = (message: string) => emit({ type: "warning", message });
  const hooks = createHookRunner({
    ...splitHooks(options.hooks),
    // Read at each firing: a resumed session's id and transcript are known only after start().
    get sessionId() {
      return sessionId;
    },
    get transcriptPath() {
      return binding?.transcriptPath ?? "";
    },
    cwd,
    getPermissionMode: () => permissions.mode,
  });
  const permissions = createPermissionEngine({
    cwd,
    mode: options.permissionMode ?? "default",
    allowedTools: options.allowedTools,
    disallowedTools: options.disallowedTools,
    settingsRules: options.permissionRules,
    additionalDirectories: options.additionalDirectories,
    allowDangerouslySkipPermissions: options.allowDangerouslySkipPermissions,
    canUseTool: wrapCanUseTool(() => hooks, options.canUseTool as never, reportHookProblem),
  });
  let stopHookActive = false;

  const steering: AgentMessage[] = [];
  let steeringUrgent = false;
  const state = createAgentState();
  const session = createLoopSession();
  const maxTokens =
    options.maxTokens ?? Math.min(32_000, catalog.get(configuredModel)?.maxOutputTokens ?? 8192);

  const loopConfig: LoopConfig = {
    sessionId,
    cwd,
    getModel: () => modelOverride ?? configuredModel,
    callModel: createModelCaller(registry, { retry: options.retry, fallbackModel: options.fallbackModel }),
    systemPrompt: resolveSystemPrompt(options.systemPrompt, { cwd, tools: staticTools.map((t) => t.name) }),
    get tools() {
      return currentTools();
    },
    maxTurns: options.maxTurns,
    maxBudgetUsd: options.maxBudgetUsd,
    maxTokens,
    temperature: options.temperature,
    stopSequences: options.stopSequences,
    getThinkingBudget: () => thinkingBudget,
    stopWhen:
      options.stopWhen === undefined
        ? []
        : Array.isArray(options.stopWhen)
          ? options.stopWhen
          : [options.stopWhen],
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
    costOf: (model, usage) => computeCost(usage, catalog.get(model)).costUsd,
    contextWindowOf: (model) => catalog.get(model)?.contextWindow,
    toolConcurrency: options.toolConcurrency,
    compact: async (messages, compactOptions) => compactWithHooks(messages, compactOptions),
    beforeToolCall: createBeforeToolCall(hooks, permissions, reportHookProblem),
    afterToolCall: createAfterToolCall(hooks, reportHookProblem),
    onStop: async (signal) => {
      if (!hooks.has("Stop")) return {};
      const last = [...session.messages].reverse().find((m) => m.role === "assistant");
      const stop = await hooks.run(
        "Stop",
        {
          stop_hook_active: stopHookActive,
          last_assistant_message: last ? textOf(last as never) : undefined,
        },
        { signal },
      );
      reportErrors(stop.errors);
      if (!stop.blocked || !stop.continue) return {};
      stopHookActive = true;
      return { continueWith: stop.blockReason ?? "A Stop hook asked to keep going." };
    },
    onMessage: (message) => binding?.recordMessage(message),
    persistBarrier: async () => {
      await binding?.flush().catch(() => {
        // A failed write is reported once, at the end of the session; tools still run.
      });
    },
    toolState: createToolSessionState(),
    state,
    emit,
  };

  const reportErrors = (errors: Array<{ hook: string; event: string; message: string }>) => {
    for (const e of errors) reportHookProblem(`${e.event} hook ${e.hook} failed: ${e.message}`);
  };
  const pendingContext: string[] = [];
  const fire = async <E extends HookEvent>(event: E, fields: HookEventFields<E>, signal: AbortSignal) => {
    if (!hooks.has(event)) return undefined;
    const result = await hooks.run(event, fields, { signal });
    reportErrors(result.errors);
    return result;
  };

  const subagentParent = (): SubagentParent => ({
    config: loopConfig,
    session,
    tools: currentTools().filter((t) => t !== taskTool),
    fireSubagentHook: async (event, fields, signal) => {
      if (event === "SubagentStart") await fire("SubagentStart", fields as never, signal);
      else
        await fire(
          "SubagentStop",
          { ...fields, agent_transcript_path: "", stop_hook_active: false } as never,
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
            });
            return { onMessage: child.recordMessage, close: child.close };
          },
  });

  const summarizer =
    options.compactor ??
    createLlmCompactor({
      callModel: loopConfig.callModel,
      maxSummaryTokens: Math.min(8192, catalog.get(configuredModel)?.maxOutputTokens ?? 8192),
      onRetry: (info) => emit({ type: "retry", ...info }),
    });
  /** The summarizer inside PreCompact / PostCompact hooks, with the boundary written to the transcript. */
  const compactWithHooks: Compactor = async (messages, compactOptions) => {
    const trigger = compactOptions.trigger === "manual" ? "manual" : "auto";
    const pre = await fire(
      "PreCompact",
      { trigger, custom_instructions: compactOptions.instructions ?? null },
      compactOptions.signal,
    );
    if (pre?.blocked)
      throw new Error(`A PreCompact hook blocked compaction: ${pre.blockReason ?? "no reason given"}`);
    const outcome = await summarizer(messages, compactOptions);
    binding?.recordCompaction({
      trigger,
      preTokens: outcome.preTokens,
      postTokens: outcome.postTokens,
      summary: outcome.summary,
      kept: outcome.messages.filter((m) => m.role !== "custom"),
    });
    await fire("PostCompact", { trigger, compact_summary: outcome.summary }, compactOptions.signal);
    return outcome;
  };

  const debugSink = options.debug || options.debugFile ? createDebugSink(options.debugFile) : undefined;

  return {
    signal: controller.signal,
    state,
    session,
    loopConfig,
    get sessionId() {
      return sessionId;
    },
    async start() {
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
      });
      sessionId = binding.sessionId;
      loopConfig.sessionId = sessionId;
      if (options.mcpServers && Object.keys(options.mcpServers).length > 0) {
        // Loaded only when used: programs without MCP never pay for the MCP SDK at start-up.
        const { createMcpManager } = await import("../mcp/manager.js");
        mcp = createMcpManager({ servers: options.mcpServers, cwd, signal: controller.signal });
        // Servers connect in parallel; the first call waits for them only up to a bound.
        await mcp.ready(options.mcpStartupTimeoutMs ?? 5_000);
      }
      session.messages = binding.messages;
      const source = binding.resumed ? "resume" : "startup";
      const started = await fire("SessionStart", { source, model: configuredModel }, controller.signal);
      if (started) pendingContext.push(...started.additionalContext);
    },
    initMessage: () => ({
      type: "system",
      subtype: "init",
      uuid: randomUUID(),
      session_id: sessionId,
      cwd,
      model: loopConfig.getModel(),
      tools: currentTools().map((t) => t.name),
      mcp_servers: mcp ? mcp.status().map(({ name, status }) => ({ name, status })) : [],
      agents: taskTool ? Object.keys(options.agents ?? { "general-purpose": true }) : undefined,
      permissionMode: permissions.mode,
      slash_commands: [],
      apiKeySource: "environment",
      claude_code_version: GOAT_VERSION,
      goat_version: GOAT_VERSION,
      output_style: "default",
      skills: [],
      plugins: [],
    }),
    async beforeRun(input, signal) {
      stopHookActive = false;
      const out: AgentMessage[] = [];
      for (const message of input) {
        if (message.role !== "user") {
          out.push(message);
          continue;
        }
        const submitted = await fire("UserPromptSubmit", { prompt: textOf(message) }, signal);
        if (submitted?.blocked) {
          reportHookProblem(
            `A UserPromptSubmit hook blocked the prompt: ${submitted.blockReason ?? "no reason given"}`,
          );
          continue;
        }
        const context = [...pendingContext.splice(0), ...(submitted?.additionalContext ?? [])];
        out.push(context.length === 0 ? message : withContext(message, context));
      }
      return out;
    },
    async afterRun(result) {
      binding?.recordResult(result);
    },
    async dispose(lastExit) {
      try {
        const reason = lastExit === "aborted" ? "abort" : "other";
        await fire("SessionEnd", { reason }, new AbortController().signal);
      } finally {
        await disposeToolSessionState(loopConfig.toolState);
        await mcp?.close();
        await binding?.close().catch((error) => {
          const text = error instanceof Error ? error.message : String(error);
          reportHookProblem(`The session transcript could not be written: ${text}`);
        });
      }
    },
    abort: () => controller.abort(),
    setModel(model) {
      if (model !== undefined) registry.resolve(model);
      modelOverride = model;
      binding?.recordModelChange(model ?? configuredModel);
    },
    setPermissionMode(mode) {
      permissions.setMode(mode);
    },
    setThinkingBudget(tokens) {
      thinkingBudget = tokens;
    },
    steer(message, interruptTools) {
      steering.push(message);
      if (interruptTools) steeringUrgent = true;
    },
    async compactNow(instructions) {
      state.set("compacting");
      try {
        const outcome = await compactWithHooks(session.messages, {
          trigger: "manual",
          signal: controller.signal,
          model: loopConfig.getModel(),
          instructions,
        });
        session.messages = outcome.messages;
        session.lastCallUsage = undefined;
        session.lastCallMessageCount = 0;
        emit({
          type: "context_compacted",
          report: outcome.summary,
          trigger: "manual",
          preTokens: outcome.preTokens,
          postTokens: outcome.postTokens,
        });
      } finally {
        state.set("idle");
      }
    },
    mcp: () => mcp,
    async setMcpServers(servers) {
      const all = { ...(options.mcpServers ?? {}), ...servers };
      if (mcp) return mcp.setServers(all);
      const { createMcpManager } = await import("../mcp/manager.js");
      mcp = createMcpManager({ servers: {}, cwd, signal: controller.signal });
      return mcp.setServers(all);
    },
    debugTrace(event) {
      if (!debugSink || event.type === "message_update") return;
      debugSink(`${new Date().toISOString()} ${event.type} ${JSON.stringify(event).slice(0, 2000)}`);
    },
  };
}

/** Splits `options.hooks` into in-process callbacks and settings-style command hooks. */
function splitHooks(hooks: QueryOptions["hooks"]): { hooks?: HooksConfig; settingsHooks?: SettingsHooks } {
  if (!hooks) return {};
  const callbacks: Record<string, unknown[]> = {};
  const commands: Record<string, unknown[]> = {};
  for (const [event, matchers] of Object.entries(hooks)) {
    for (const matcher of (matchers ?? []) as Array<{
      matcher?: string;
      hooks: unknown[];
      timeout?: number;
    }>) {
      const fns = matcher.hooks.filter((h) => typeof h === "function");
      const cmds = matcher.hooks.filter((h) => typeof h !== "function");
      if (fns.length > 0) {
        callbacks[event] ??= [];
        callbacks[event].push({ ...matcher, hooks: fns });
      }
      if (cmds.length > 0) {
        commands[event] ??= [];
        commands[event].push({ ...matcher, hooks: cmds });
      }
    }
  }
  return { hooks: callbacks as HooksConfig, settingsHooks: commands as SettingsHooks };
}

/** Adds hook context to a user message, where the model reads it with the prompt. */
function withContext(message: AgentMessage & { role: "user" }, context: string[]): AgentMessage {
  const blocks =
    typeof message.content === "string"
      ? [{ type: "text" as const, text: message.content }]
      : message.content;
  const reminder = {
    type: "text" as const,
    text: `<system-reminder>\n${context.join("\n")}\n</system-reminder>`,
  };
  return { role: "user", content: [...blocks, reminder] };
}

function createDebugSink(file: string | undefined): (line: string) => void {
  if (!file) return (line) => process.stderr.write(`[goat] ${line}\n`);
  return (line) => {
    try {
      appendFileSync(file, `${line}\n`);
    } catch {
      // Tracing must never break a run.
    }
  };
}
