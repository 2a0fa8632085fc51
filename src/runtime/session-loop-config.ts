/**
 * The loop's config of one session: its extension points filled by the session's services (model,
 * tools, reasoning, steering, compaction, hooks, permissions, persistence). Every service is built
 * before it; the loop reads the functions at each use, so the host's controls take effect mid-run.
 */

import { InvalidOptionError } from "../errors.js";
import type { AgentEvent } from "../loop/events.js";
import type { Compactor, LoopConfig } from "../loop/loop-config.js";
import type { PermissionEngine } from "../permissions/engine.js";
import { preloadShellParser } from "../permissions/shell-parser.js";
import type { FileScope, Tool } from "../tools/types.js";
import type { FileCheckpoints } from "./file-checkpoints.js";
import type { ModelChoice } from "./model-choice.js";
import { withNestedMemory } from "./nested-memory.js";
import type { SessionOptions } from "./options.js";
import { pacedModelCaller, type StreamPace } from "./paced-model-caller.js";
import type { SessionReasoning } from "./reasoning.js";
import type { RuntimeCore } from "./runtime-core.js";
import type { SessionHooks } from "./session-hooks.js";
import type { SessionMemory } from "./session-memory.js";
import type { SessionProviders } from "./session-providers.js";
import type { SessionSteering } from "./session-steering.js";
import type { SessionTools } from "./session-tools.js";
import type { SessionTranscript } from "./session-transcript.js";
import type { SessionStructuredOutput } from "./structured-output.js";
import { resolveSystemPrompt } from "./system-prompt.js";
import { createAfterToolCall, createBeforeToolCall, type ToolResponseShape } from "./tool-gate.js";

/** The loop's tool-call hook points, and the gate they start with (a `/command`'s `!` lines use it too). */
export interface ToolCallHooks {
  /** PreToolUse hooks and permissions; `preApproved` names what already approved the call. */
  gate: ReturnType<typeof createBeforeToolCall>;
  beforeToolCall: NonNullable<LoopConfig["beforeToolCall"]>;
  afterToolCall: NonNullable<LoopConfig["afterToolCall"]>;
}

/**
 * Builds the tool-call hook points: before a call, the gate, then (with checkpoints on) the file an
 * allowed edit will change is kept; after it, PostToolUse hooks, then the nested memory a file tool
 * brings in.
 */
export function createToolCallHooks(
  core: RuntimeCore,
  links: {
    hooks: SessionHooks;
    permissions: PermissionEngine;
    checkpoints: FileCheckpoints | undefined;
    memory: SessionMemory | undefined;
    toolResponse: ToolResponseShape | undefined;
  },
): ToolCallHooks {
  const { hooks, checkpoints, memory } = links;
  const gate = createBeforeToolCall(hooks.runner, links.permissions, core.report);
  const afterHooks = createAfterToolCall(hooks.runner, core.report, links.toolResponse);
  const beforeToolCall: ToolCallHooks["beforeToolCall"] = checkpoints
    ? async (info) => {
        const decision = await gate(info);
        if (decision.action === "run")
          await checkpoints.beforeToolRuns(info.tool.name, decision.input, core.cwd);
        return decision;
      }
    : gate;
  const afterToolCall: ToolCallHooks["afterToolCall"] = memory?.nested
    ? withNestedMemory(afterHooks, memory.nested)
    : afterHooks;
  return { gate, beforeToolCall, afterToolCall };
}

/** The services the loop's config is filled from. */
export interface LoopConfigSources {
  core: RuntimeCore;
  transcript: SessionTranscript;
  providers: SessionProviders;
  models: ModelChoice;
  tools: SessionTools;
  memory: SessionMemory | undefined;
  hooks: SessionHooks;
  structured: SessionStructuredOutput;
  steering: SessionSteering;
  reasoning: SessionReasoning;
  compact: Compactor;
  fileScope: () => FileScope | undefined;
  toolCalls: ToolCallHooks;
  maxTokens: number;
  /** Pauses the model's stream while the host lags behind. */
  pace: StreamPace | undefined;
}

/** Builds the session's loop config. Throws for a bad `toolTimeoutMs`. */
export function createSessionLoopConfig(s: LoopConfigSources): LoopConfig {
  const { core, providers, models, tools, structured, transcript } = s;
  const { options, cwd, session } = core;
  const withStructured = memoizeLast((list: Tool[], extra: Tool | undefined) =>
    extra ? [...list, extra] : list,
  );
  return {
    // A resumed or continued session takes its transcript's id at start().
    get sessionId() {
      return transcript.id;
    },
    cwd,
    getModel: models.forTurn,
    // Only the session's own turns are paced: a summary or a small-model call is not the host's stream.
    callModel: s.pace ? pacedModelCaller(providers.callModel, s.pace) : providers.callModel,
    systemPrompt: resolveSystemPrompt(
      options.systemPrompt,
      { cwd, tools: tools.staticTools.map((t) => t.name) },
      s.memory?.files,
    ),
    get tools() {
      return withStructured(tools.current(), structured.current()?.tool);
    },
    maxTurns: options.maxTurns,
    maxBudgetUsd: options.maxBudgetUsd,
    maxTokens: s.maxTokens,
    temperature: options.temperature,
    stopSequences: options.stopSequences,
    getReasoning: (model) => s.reasoning.forModel(model),
    stopWhen: [
      ...(options.stopWhen === undefined ? [] : [options.stopWhen].flat()),
      ...(options.outputFormat ? [() => structured.current()?.done() === true] : []),
    ],
    transformContext: options.transformContext,
    convertToLlm: options.convertToLlm,
    getSteeringMessages: s.steering.take,
    steeringInterruptsTools: s.steering.interruptsTools,
    getFollowUpMessages: options.getFollowUpMessages,
    costOf: providers.costOf,
    contextWindowOf: providers.contextWindowOf,
    maxOutputTokensOf: providers.maxOutputTokensOf,
    toolConcurrency: options.toolConcurrency,
    orderedToolStarts: options.orderedToolStarts,
    toolTimeoutOf: toolTimeouts(options, tools.staticTools),
    // The SDK user messages carry Claude Code's tool output shapes (tool_use_result), which need them.
    wantsFullDetails: () => true,
    fileScope: s.fileScope,
    compact: s.compact,
    beforeToolCall: s.toolCalls.beforeToolCall,
    afterToolCall: s.toolCalls.afterToolCall,
    onStop: async (signal) => {
      // Asked for structured output and not given it: the model is told to call the tool first.
      const nudge = structured.current()?.nudge();
      return nudge ? { continueWith: nudge } : s.hooks.onStop(session.messages, signal);
    },
    onMessage: (message) => transcript.binding?.recordMessage(message),
    persistBarrier: async () => {
      await transcript.binding?.flush().catch(() => {
        // A failed write is reported once, at the end of the session; tools still run.
      });
    },
    toolState: core.toolState,
    // The flag settings layer may add variables while the session runs.
    get env() {
      return core.sessionEnv();
    },
    state: core.state,
    emit: loopEmitter(core.emit, options, tools.staticTools),
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
const DEFAULT_TOOL_TIMEOUT_MS = 10 * 60_000;

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
 * The loop's event listener. Bash checks read command lines with a WASM grammar, whose load costs
 * about 0.1-0.2 s of CPU. It starts when the model starts writing a Bash call, so it overlaps the
 * streaming of the call's input and a session that never calls Bash never pays for it (a one-shot
 * `goat -p` answering in text finished 35 ms sooner and used 60 ms less CPU). Not when Bash is off
 * or bypassPermissions allows all: then the events go straight to `emit`.
 */
function loopEmitter(
  emit: (event: AgentEvent) => void,
  options: SessionOptions,
  staticTools: readonly Tool[],
): (event: AgentEvent) => void {
  const checksBash =
    options.permissionMode !== "bypassPermissions" && staticTools.some((t) => t.name === "Bash");
  return checksBash ? loadGrammarOnBashCall(emit) : emit;
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
