/**
 * The runtime of one session: turns `QueryOptions` into the loop's config and owns what outlives a
 * single run — the history, the provider registry, the tools' session state, the agent state, the
 * controls (`setModel`, `steer`, …) and the start and end of the session.
 */
import { randomUUID } from "node:crypto";
import { appendFileSync } from "node:fs";
import { createModelCatalog } from "../llm/catalog.js";
import { computeCost } from "../llm/cost.js";
import { createProviderRegistry, type ProviderSpec } from "../llm/resolve.js";
import { resolveTools } from "../tools/builtin.js";
import { createToolRegistry } from "../tools/registry.js";
import { createToolSessionState, disposeToolSessionState } from "../tools/types.js";
import { createLoopSession, type LoopSession } from "./context.js";
import type { AgentEvent, AgentMessage, ExitReason } from "./events.js";
import type { LoopConfig } from "./loop-config.js";
import { createModelCaller } from "./model-caller.js";
import type { QueryOptions } from "./options.js";
import type { PermissionModeName, SDKResultMessage, SDKSystemInitMessage } from "./sdk-messages.js";
import { createAgentState, type MutableAgentState } from "./state.js";
import { resolveSystemPrompt } from "./system-prompt.js";
import { GOAT_VERSION } from "./version.js";

/** What `query()` and `Agent` drive. */
export interface Runtime {
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
  const sessionId = options.sessionId ?? randomUUID();
  const controller = options.abortController ?? new AbortController();
  if (options.signal) {
    const outer = options.signal;
    if (outer.aborted) controller.abort();
    else outer.addEventListener("abort", () => controller.abort(), { once: true });
  }
  const configuredModel = options.model ?? defaultModel(env);
  let modelOverride: string | undefined;
  let thinkingBudget = options.maxThinkingTokens;
  let permissionMode: PermissionModeName = options.permissionMode ?? "default";

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
  const tools = createToolRegistry(resolveTools(options.tools))
    .filter({ disallowedTools: options.disallowedTools })
    .list();

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
    systemPrompt: resolveSystemPrompt(options.systemPrompt, { cwd, tools: tools.map((t) => t.name) }),
    tools,
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
    compact: options.compactor,
    toolState: createToolSessionState(),
    state,
    emit,
  };

  const debugSink = options.debug || options.debugFile ? createDebugSink(options.debugFile) : undefined;

  return {
    sessionId,
    signal: controller.signal,
    state,
    session,
    loopConfig,
    async start() {},
    initMessage: () => ({
      type: "system",
      subtype: "init",
      uuid: randomUUID(),
      session_id: sessionId,
      cwd,
      model: loopConfig.getModel(),
      tools: tools.map((t) => t.name),
      mcp_servers: [],
      permissionMode,
      slash_commands: [],
      apiKeySource: "environment",
      claude_code_version: GOAT_VERSION,
      goat_version: GOAT_VERSION,
      output_style: "default",
      skills: [],
      plugins: [],
    }),
    async beforeRun(input) {
      return input;
    },
    async afterRun() {},
    async dispose() {
      await disposeToolSessionState(loopConfig.toolState);
    },
    abort: () => controller.abort(),
    setModel(model) {
      if (model !== undefined) registry.resolve(model);
      modelOverride = model;
    },
    setPermissionMode(mode) {
      permissionMode = mode;
    },
    setThinkingBudget(tokens) {
      thinkingBudget = tokens;
    },
    steer(message, interruptTools) {
      steering.push(message);
      if (interruptTools) steeringUrgent = true;
    },
    async compactNow() {
      throw new Error("No compactor is configured for this session.");
    },
    debugTrace(event) {
      if (!debugSink || event.type === "message_update") return;
      debugSink(`${new Date().toISOString()} ${event.type} ${JSON.stringify(event).slice(0, 2000)}`);
    },
  };
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
