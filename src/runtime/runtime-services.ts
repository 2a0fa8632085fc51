/**
 * The services of one session, each built by its own factory from those built before it, in the
 * order `RuntimeServices` lists them: the policy (models, transcript, memory, sandbox, hooks,
 * subagents, tools, permission engine), then what the loop runs with (reasoning, structured output,
 * checkpoints, steering, compaction, tool-call hooks), the loop's config, and what reads it.
 *
 * Three cycles no build order breaks (the permission engine with the sandbox, the hooks and the tools;
 * the subagents with the tools and the loop's config) go through the one late-bound seam,
 * `late-services.ts`, never through a variable assigned later.
 */
import type { AgentEvent } from "../loop/events.js";
import type { Compactor, LoopConfig } from "../loop/loop-config.js";
import type { PermissionEngine } from "../permissions/engine.js";
import { parseRuleValue } from "../permissions/rule-parse.js";
import type { FileScope } from "../tools/types.js";
import type { CommandExpansionContext } from "./custom-commands.js";
import { createDebugLog, type DebugLog } from "./debug-log.js";
import { createFileCheckpoints, type FileCheckpoints } from "./file-checkpoints.js";
import { createFlagSettings } from "./flag-settings.js";
import { createHostInfo, type HostInfo } from "./host-info.js";
import { createLateSeam, type LateSeam } from "./late-services.js";
import { createModelChoice, type ModelChoice } from "./model-choice.js";
import type { SessionOptions } from "./options.js";
import {
  commandExpansionContext,
  type OutsideToolContext,
  outsideToolContext,
  promptToolCallback,
} from "./outside-tools.js";
import type { StreamPace } from "./paced-model-caller.js";
import { createSessionReasoning, type SessionReasoning } from "./reasoning.js";
import { createRuntimeCore, type RuntimeCore } from "./runtime-core.js";
import { createSessionCompaction } from "./session-compaction.js";
import { createSessionHooks, type SessionHooks } from "./session-hooks.js";
import { createSessionLoopConfig, createToolCallHooks, type ToolCallHooks } from "./session-loop-config.js";
import { type SessionMemory, startSessionMemory } from "./session-memory.js";
import {
  createSessionPermissions,
  createSessionSandboxing,
  type SessionSandboxing,
  sessionFileScope,
} from "./session-policy.js";
import { createSessionProviders, type SessionProviders } from "./session-providers.js";
import { createSessionSteering, type SessionSteering } from "./session-steering.js";
import { createSessionTools, type SessionTools } from "./session-tools.js";
import { createSessionTranscript, type SessionTranscript } from "./session-transcript.js";
import { createSmallModel } from "./small-model.js";
import { type SessionStructuredOutput, sessionStructuredOutput } from "./structured-output.js";
import { createSubagentHost, type SubagentHost } from "./subagent-host.js";
import type { ToolResponseShape } from "./tool-gate.js";

/** What the host of a runtime adds besides the options. */
export interface RuntimeHostOptions {
  /** Pauses the model's stream while the host lags behind (see paced-model-caller.ts). */
  pace?: StreamPace;
  /** How PostToolUse hooks see a tool's output (the SDK gives Claude Code's shapes). */
  toolResponse?: ToolResponseShape;
}

/**
 * A session's services, in the order they are built: each factory takes only services above it (and
 * the late-bound seam, for the cycles it names).
 */
export interface RuntimeServices {
  /** Options, cwd, environment, abort signal, history, agent and tool state, warnings. */
  readonly core: RuntimeCore;
  /** Provider registry, catalog, prices, model caller, small fast model. */
  readonly providers: SessionProviders;
  /** The session's id and transcript (opened at `start()`). */
  readonly transcript: SessionTranscript;
  /** The model in force (`setModel`, a slash command's own). */
  readonly models: ModelChoice;
  /** CLAUDE.md and its kin, read once (undefined: the session reads none). */
  readonly memory: SessionMemory | undefined;
  /** Managed settings, the sandbox and the confinement of Bash. */
  readonly sandboxing: SessionSandboxing;
  /** The session-level hook points and the hook runner. */
  readonly hooks: SessionHooks;
  /** The parent side of subagents (the Task tool's view of the session). */
  readonly subagents: SubagentHost;
  /** The tools offered to the model, MCP servers' among them. */
  readonly tools: SessionTools;
  /** Where file tools may go, re-checked as they open a path through a link. */
  readonly fileScope: () => FileScope | undefined;
  /** The context of a tool run outside the loop (the permission prompt tool, a command's `!` line). */
  readonly toolContext: OutsideToolContext;
  /** The permission engine: modes, rules, directories, the host's `canUseTool`. */
  readonly permissions: PermissionEngine;
  /** The `outputFormat` tool and its verdict. */
  readonly structured: SessionStructuredOutput;
  /** File checkpoints, when `enableFileCheckpointing` is on. */
  readonly checkpoints: FileCheckpoints | undefined;
  /** The host's steering queue. */
  readonly steering: SessionSteering;
  /** The summarizer in its hook points, boundaries recorded. */
  readonly compact: Compactor;
  /** The output limit of the session's calls. */
  readonly maxTokens: number;
  /** Thinking and effort per call. */
  readonly reasoning: SessionReasoning;
  /** The gate and the loop's before/after tool-call hook points. */
  readonly toolCalls: ToolCallHooks;
  /** The loop's config, filled from the services above. */
  readonly loopConfig: LoopConfig;
  /** The answers to the host's questions about the session. */
  readonly info: HostInfo;
  /** What a `/command` prompt's `!` lines and `@` files go through. */
  readonly commands: CommandExpansionContext;
  /** The `debug` / `debugFile` trace (undefined when off). */
  readonly debugLog: DebugLog | undefined;
  /** The `applyFlagSettings` layer. */
  readonly flagSettings: ReturnType<typeof createFlagSettings>;
}

/** Builds the session's services in order: the policy first, then what the loop runs with. */
export function buildServices(
  options: SessionOptions,
  emit: (event: AgentEvent) => void,
  host: RuntimeHostOptions,
): RuntimeServices {
  // The one late-bound seam: see late-services.ts for the cycles it closes. Bound below, each entry
  // right after its service is built.
  const late = createLateSeam();
  const policy = buildPolicyServices(createRuntimeCore(options, emit), late);
  late.bind("tools", policy.tools);
  late.bind("permissions", policy.permissions);
  const services = buildLoopServices(policy, host);
  late.bind("loopConfig", services.loopConfig);
  return services;
}

/** The services up to the permission engine. */
type PolicyServices = Pick<
  RuntimeServices,
  | "core"
  | "providers"
  | "transcript"
  | "models"
  | "memory"
  | "sandboxing"
  | "hooks"
  | "subagents"
  | "tools"
  | "fileScope"
  | "toolContext"
  | "permissions"
>;

/** Models, transcript, memory, sandbox, hooks, subagents, tools and the permission engine. */
function buildPolicyServices(core: RuntimeCore, late: LateSeam): PolicyServices {
  const { options, cwd, env, report } = core;
  const providers = createSessionProviders(options, env, report, core.warnAtStart);
  const transcript = createSessionTranscript(core, providers.costOf);
  const models = createModelChoice(providers, transcript);
  const memory = startSessionMemory(options, cwd, env, { atStart: core.warnAtStart, later: report });
  const sandboxing = createSessionSandboxing(options, core, () => late.permissions().directories, report);
  const hooks = createSessionHooks({
    hooks: options.hooks,
    cwd,
    getSessionId: () => transcript.id,
    getTranscriptPath: () => transcript.binding?.transcriptPath ?? "",
    getPermissionMode: () => late.permissions().mode,
    report,
    // The flag settings layer may add variables while the session runs.
    get env() {
      return core.sessionEnv();
    },
    managedHooksOnly: sandboxing.managed?.managedHooksOnly,
    emitHookEvents: options.includeHookEvents ? core.emit : undefined,
  });
  const { openChild } = transcript;
  // The Task tool reaches the session through this, when a subagent starts.
  const subagents = createSubagentHost({
    config: late.loopConfig,
    session: core.session,
    tools: () =>
      late
        .tools()
        .current()
        .filter((t) => t !== late.tools().taskTool),
    hooks,
    memory: () => memory?.files,
    openChildTranscript: openChild && ((agentId) => openChild(agentId, models.current())),
  });
  const tools = sessionTools(core, providers, sandboxing, subagents, late);
  const fileScope = sessionFileScope(late.permissions, sandboxing.shellStartupFiles);
  const toolContext = outsideToolContext(core, () => transcript.id, fileScope);
  const permissions = createSessionPermissions(options, cwd, {
    sandboxing,
    bashSandboxed: tools.bashSandboxed,
    hooks: () => hooks.runner,
    promptTool: () => promptToolCallback(options.permissionPromptToolName, tools.current, toolContext),
    report,
  });
  return {
    core,
    providers,
    transcript,
    models,
    memory,
    sandboxing,
    hooks,
    subagents,
    tools,
    fileScope,
    toolContext,
    permissions,
  };
}

/** The tool set, WebFetch given the session's rules and small fast model, skills' rules given to the engine. */
function sessionTools(
  core: RuntimeCore,
  providers: SessionProviders,
  sandboxing: SessionSandboxing,
  subagents: SubagentHost,
  late: LateSeam,
): SessionTools {
  const { smallFastModel } = providers;
  return createSessionTools(
    core.options,
    core.cwd,
    () => subagents.parent(),
    { sandbox: sandboxing.sandbox, confinement: sandboxing.confinement },
    {
      // A host on this machine or a private network needs a rule naming it, such as WebFetch(domain:localhost).
      hostAllowed: (host) => late.permissions().allowsByNamedRule("WebFetch", { url: `http://${host}/` }),
      smallModel:
        smallFastModel === undefined
          ? undefined
          : createSmallModel(smallFastModel, () => ({
              callModel: providers.callModel,
              session: core.session,
              costOf: providers.costOf,
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
          late
            .permissions()
            .applyUpdates([{ type: "addRules", rules: [value], behavior: "allow", destination: "session" }]);
        } catch (error) {
          core.report(
            `Skill "${name}": allowed-tools rule ${JSON.stringify(rule)} is not used: ${(error as Error).message}`,
          );
        }
      }
    },
  );
}

/** Reasoning, structured output, checkpoints, steering, compaction, the loop's config, and what reads it. */
function buildLoopServices(policy: PolicyServices, host: RuntimeHostOptions): RuntimeServices {
  const { core, providers, hooks, permissions, tools } = policy;
  const { options } = core;
  const structured = sessionStructuredOutput(options.outputFormat);
  const checkpoints = options.enableFileCheckpointing ? createFileCheckpoints() : undefined;
  const steering = createSessionSteering(options.getSteeringMessages);
  const compact = createSessionCompaction(core, providers, hooks, policy.transcript);
  const maxTokens =
    options.maxTokens ??
    Math.min(32_000, providers.catalog.get(providers.configuredModel)?.maxOutputTokens ?? 8192);
  const { thinking, effort, maxThinkingTokens } = options;
  const reasoning = createSessionReasoning(
    { thinking, effort, maxThinkingTokens, maxTokens },
    providers.catalog,
    core.report,
  );
  const toolCalls = createToolCallHooks(core, {
    hooks,
    permissions,
    checkpoints,
    memory: policy.memory,
    toolResponse: host.toolResponse,
  });
  const loopConfig = createSessionLoopConfig({
    ...policy,
    structured,
    steering,
    reasoning,
    compact,
    toolCalls,
    maxTokens,
    pace: host.pace,
  });
  const info = createHostInfo({
    options,
    env: core.env,
    registry: providers.registry,
    providerSpecs: providers.providerSpecs,
    catalog: providers.catalog,
    currentModel: policy.models.current,
    hasTaskTool: tools.taskTool !== undefined,
    config: () => loopConfig,
    session: core.session,
    maxOutputTokens: maxTokens,
  });
  const commands = commandExpansionContext({
    core,
    permissions,
    tools: tools.current,
    gate: toolCalls.gate,
    context: policy.toolContext,
  });
  const debugLog = createDebugLog({ debug: options.debug, debugFile: options.debugFile, env: core.env });
  const loop = { maxTokens, reasoning, structured, checkpoints, steering, compact, toolCalls, loopConfig };
  return {
    ...policy,
    ...loop,
    info,
    commands,
    debugLog,
    flagSettings: sessionFlagSettings(policy, reasoning),
  };
}

/** The `applyFlagSettings` layer over the session's model, reasoning, permissions, hooks and environment. */
function sessionFlagSettings(
  s: Pick<RuntimeServices, "core" | "providers" | "models" | "permissions" | "hooks">,
  reasoning: SessionReasoning,
): ReturnType<typeof createFlagSettings> {
  const { options } = s.core;
  const configuredThinking =
    options.thinking ??
    (options.maxThinkingTokens
      ? { type: "enabled" as const, budgetTokens: options.maxThinkingTokens }
      : undefined);
  return createFlagSettings({
    checkModel: s.providers.checkModel,
    setModel: s.models.set,
    setFallbackModel: s.providers.setFallbackModel,
    setEffort: (effort) => reasoning.setEffort(effort),
    setThinking: (thinking) => reasoning.setThinking(thinking ?? configuredThinking),
    permissions: s.permissions,
    setFlagHooks: (flagHooks) => s.hooks.runner.setFlagHooks(flagHooks),
    setFlagEnv: s.core.setFlagEnv,
  });
}
