/**
 * The session-level hook points: SessionStart, UserPromptSubmit, Stop, SessionEnd and the compaction
 * pair. Tool-level hooks live in tool-gate.ts. A hook's failure is reported as a warning and never
 * stops the session; a session without hooks pays a map lookup per hook point.
 */
import { CompactionError, InvalidOptionError } from "../errors.js";
import type { AggregatedHookResult } from "../hooks/aggregate.js";
import type { HookObserver } from "../hooks/run-hooks.js";
import { createHookRunner, type HookRunner } from "../hooks/runner.js";
import type { HookEvent, HookEventFields, HooksConfig, SettingsHooks } from "../hooks/types.js";
import { textOf } from "../llm/types.js";
import type { AgentEvent, AgentMessage } from "../loop/events.js";
import type { Compactor, StopHookOutcome } from "../loop/loop-config.js";
import { systemReminder } from "../loop/model-framing.js";
import type { SessionOptions } from "./options.js";

/** The session's hook points. */
export interface SessionHooks {
  readonly runner: HookRunner;
  /** Fires `event` if any hook is registered for it; reports hook errors as warnings. */
  fire<E extends HookEvent>(
    event: E,
    fields: HookEventFields<E>,
    signal: AbortSignal,
  ): Promise<AggregatedHookResult | undefined>;
  /** Reports a hook problem to the user (a `warning` event). */
  report(message: string): void;
  /** SessionStart; its additional context is held for the first prompt. */
  sessionStart(source: "startup" | "resume", model: string, signal: AbortSignal): Promise<void>;
  /** UserPromptSubmit for each prompt of a run: blocked prompts are dropped, context is attached. */
  submitPrompts(input: AgentMessage[], signal: AbortSignal): Promise<AgentMessage[]>;
  /** The Stop hook point: a blocking hook keeps the loop going with its reason. */
  onStop(history: AgentMessage[], signal: AbortSignal): Promise<StopHookOutcome>;
  sessionEnd(reason: string): Promise<void>;
  /** Wraps a summarizer in PreCompact / PostCompact; `record` stores the boundary. */
  wrapCompactor(
    summarizer: Compactor,
    record: (outcome: Awaited<ReturnType<Compactor>>, trigger: "manual" | "auto") => void,
  ): Compactor;
}

/** What the hook points need from the session. */
export interface SessionHooksConfig {
  hooks: SessionOptions["hooks"];
  cwd: string;
  /** Read at each firing: a resumed session's id and transcript are known only after start. */
  getSessionId: () => string;
  getTranscriptPath: () => string;
  getPermissionMode: () => string;
  report: (message: string) => void;
  /** The environment of command hooks (read at each firing: `applyFlagSettings` may add to it). */
  env: Record<string, string | undefined>;
  /** Managed settings' `allowManagedHooksOnly`: command hooks from settings do not run. */
  managedHooksOnly?: boolean;
  /** Set with `includeHookEvents`: each hook's start and end become agent events. */
  emitHookEvents?: (event: AgentEvent) => void;
}

/** Builds the session's hook points. Throws at once for a misconfigured hook. */
export function createSessionHooks(config: SessionHooksConfig): SessionHooks {
  const runner = createHookRunner({
    ...splitHooks(config.hooks),
    get sessionId() {
      return config.getSessionId();
    },
    get transcriptPath() {
      return config.getTranscriptPath();
    },
    cwd: config.cwd,
    getPermissionMode: config.getPermissionMode,
    get env() {
      return config.env;
    },
    managedHooksOnly: config.managedHooksOnly,
    observer: config.emitHookEvents ? hookEventEmitter(config.emitHookEvents) : undefined,
  });
  const pendingContext: string[] = [];
  let stopHookActive = false;

  const fire: SessionHooks["fire"] = async (event, fields, signal) => {
    if (!runner.has(event)) return undefined;
    const result = await runner.run(event, fields, { signal });
    for (const e of result.errors) config.report(`${e.event} hook ${e.hook} failed: ${e.message}`);
    return result;
  };

  return {
    runner,
    fire,
    report: config.report,
    async sessionStart(source, model, signal) {
      const started = await fire("SessionStart", { source, model }, signal);
      if (started) pendingContext.push(...started.additionalContext);
    },
    async submitPrompts(input, signal) {
      stopHookActive = false;
      const out: AgentMessage[] = [];
      for (const message of input) {
        if (message.role !== "user") {
          out.push(message);
          continue;
        }
        const submitted = await fire("UserPromptSubmit", { prompt: textOf(message) }, signal);
        if (submitted?.blocked) {
          config.report(
            `A UserPromptSubmit hook blocked the prompt: ${submitted.blockReason ?? "no reason given"}`,
          );
          continue;
        }
        const context = [...pendingContext.splice(0), ...(submitted?.additionalContext ?? [])];
        out.push(context.length === 0 ? message : withContext(message, context));
      }
      return out;
    },
    async onStop(history, signal) {
      if (!runner.has("Stop")) return {};
      const last = history.findLast((m) => m.role === "assistant");
      const stop = await fire(
        "Stop",
        {
          stop_hook_active: stopHookActive,
          last_assistant_message: last ? textOf(last as never) : undefined,
        },
        signal,
      );
      if (!stop?.blocked || !stop.continue) return {};
      stopHookActive = true;
      return { continueWith: stop.blockReason ?? "A Stop hook asked to keep going." };
    },
    async sessionEnd(reason) {
      await fire("SessionEnd", { reason }, new AbortController().signal);
    },
    wrapCompactor(summarizer, record) {
      return async (messages, options) => {
        const trigger = options.trigger === "manual" ? "manual" : "auto";
        const pre = await fire(
          "PreCompact",
          { trigger, custom_instructions: options.instructions ?? null },
          options.signal,
        );
        if (pre?.blocked) {
          throw new CompactionError(
            `A PreCompact hook blocked compaction: ${pre.blockReason ?? "no reason given"}`,
            { code: "compaction_blocked" },
          );
        }
        const outcome = await summarizer(messages, options);
        record(outcome, trigger);
        await fire("PostCompact", { trigger, compact_summary: outcome.summary }, options.signal);
        return outcome;
      };
    },
  };
}

/** Splits `options.hooks` into in-process callbacks and settings-style command hooks. */
function splitHooks(hooks: SessionOptions["hooks"]): { hooks?: HooksConfig; settingsHooks?: SettingsHooks } {
  if (!hooks) return {};
  const callbacks: Record<string, unknown[]> = {};
  const commands: Record<string, unknown[]> = {};
  for (const [event, groups] of Object.entries(hooks)) {
    for (const matcher of matcherGroups(event, groups)) {
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

type MatcherGroup = { matcher?: string; hooks: unknown[]; timeout?: number };

/**
 * One event's matcher groups, accepting the shapes people write by mistake as what they mean: a bare
 * callback or command entry (`PreToolUse: [check]`, `PreToolUse: check`) is a group that matches every
 * tool, and a single group need not be in an array. Anything else is refused, naming where.
 */
function matcherGroups(event: string, value: unknown): MatcherGroup[] {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((entry, i) => {
    const where = Array.isArray(value) ? `hooks.${event}[${i}]` : `hooks.${event}`;
    if (typeof entry === "function" || isCommandEntry(entry)) return { hooks: [entry] };
    if (typeof entry === "object" && entry !== null) {
      const group = entry as { matcher?: unknown; hooks?: unknown; timeout?: unknown };
      const inner =
        typeof group.hooks === "function" || isCommandEntry(group.hooks) ? [group.hooks] : group.hooks;
      const bad = !Array.isArray(inner)
        ? "has no hooks array"
        : inner.some((h) => typeof h !== "function" && !isCommandEntry(h))
          ? 'has a hook that is neither a function nor { type: "command", command }'
          : group.matcher !== undefined && typeof group.matcher !== "string"
            ? "has a matcher that is not a string"
            : undefined;
      if (!bad) return { ...(group as MatcherGroup), hooks: inner as unknown[] };
      throw new InvalidOptionError(
        "hooks",
        `${where} ${bad}: write { matcher: "Bash", hooks: [async (input) => ({})] } (matcher optional), or just the callback.`,
      );
    }
    throw new InvalidOptionError(
      "hooks",
      `${where} must be a hook callback or { matcher?, hooks: [callback] }, got ${entry === null ? "null" : typeof entry}.`,
    );
  });
}

function isCommandEntry(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { type?: unknown }).type === "command" &&
    typeof (value as { command?: unknown }).command === "string"
  );
}

/** Adds hook context to a user message, where the model reads it with the prompt. */
function withContext(message: AgentMessage & { role: "user" }, context: string[]): AgentMessage {
  const blocks =
    typeof message.content === "string"
      ? [{ type: "text" as const, text: message.content }]
      : message.content;
  const reminder = {
    type: "text" as const,
    text: systemReminder(context.join("\n")),
  };
  return { role: "user", content: [...blocks, reminder] };
}

/**
 * Each hook's start and end as agent events, which the SDK stream turns into Claude Code's
 * `hook_started` and `hook_response` messages. `output` is what a command printed, or what a
 * callback returned as JSON; a failure's reason goes in `stderr` when the hook printed none.
 */
function hookEventEmitter(emit: (event: AgentEvent) => void): HookObserver {
  return {
    started: (run) =>
      emit({ type: "hook_started", hookRunId: run.runId, hookName: run.hookName, hookEvent: run.event }),
    finished: (run, outcome) =>
      emit({
        type: "hook_finished",
        hookRunId: run.runId,
        hookName: run.hookName,
        hookEvent: run.event,
        outcome: outcome.outcome,
        output:
          outcome.kind === "command"
            ? (outcome.stdout ?? "")
            : outcome.output
              ? JSON.stringify(outcome.output)
              : "",
        stdout: outcome.stdout ?? "",
        stderr: outcome.stderr || outcome.error || "",
        ...(typeof outcome.exitCode === "number" ? { exitCode: outcome.exitCode } : {}),
      }),
  };
}
