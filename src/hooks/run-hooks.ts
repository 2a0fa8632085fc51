/**
 * Fires one event: picks the hooks whose matcher applies, runs them all in parallel (each under its
 * own timeout), and folds their answers into one result. Never throws: a hook that throws, hangs,
 * exits non-zero or prints garbage becomes an entry in `errors` and the others still count.
 */

import { randomUUID } from "node:crypto";
import type { AggregatedHookResult } from "./aggregate.js";
import { aggregateHookOutcomes, blockingOutput, emptyHookResult, type HookOutcome } from "./aggregate.js";
import { runCommandHook } from "./command.js";
import { matcherApplies, matcherTarget } from "./matcher.js";
import { parseCommandStdout, parseHookOutput } from "./output.js";
import { buildHookRegistry, type HookRegistry, type HookSources, type RegisteredHook } from "./registry.js";
import type { HookEvent, HookInput, HookInputMap, HookJSONOutput } from "./types.js";

/** One hook's run within a firing, as a `HookObserver` sees it. */
export interface HookRun {
  /** Unique per run (a hook that fires for two tool calls at once runs twice, with two ids). */
  runId: string;
  /** `<Event>:<matcher or *>`, like Claude Code's hook_name. */
  hookName: string;
  event: HookEvent;
}

/**
 * Told as each hook of a firing starts and ends: what Claude Code reports as `hook_started` and
 * `hook_response` messages. Must not throw.
 */
export interface HookObserver {
  started(run: HookRun): void;
  finished(run: HookRun, outcome: HookOutcome): void;
}

/** Per-firing options. */
export interface RunHooksOptions {
  /** The run's signal: aborting it cancels (and kills) every hook still running. */
  signal: AbortSignal;
  /** Passed to callbacks as their second argument; defaults to the input's `tool_use_id`. */
  toolUseID?: string;
  /** `GOAT_PROJECT_DIR` for command hooks; defaults to the input's `cwd`. */
  projectDir?: string;
  /** The environment of command hooks; default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Told as each hook starts and ends. */
  observer?: HookObserver;
}

/**
 * Runs every hook of `event` that matches `input` and aggregates the answers. `config` is either
 * the registrations or a registry built once with `buildHookRegistry` (cheaper per call).
 */
export async function runHooks<E extends HookEvent>(
  event: E,
  input: HookInputMap[E],
  config: HookSources | HookRegistry,
  options: RunHooksOptions,
): Promise<AggregatedHookResult> {
  const registry = config instanceof Map ? config : buildHookRegistry(config);
  const registered = registry.get(event);
  if (registered === undefined || registered.length === 0) return emptyHookResult(event);
  const target = matcherTarget(event, input);
  const seenCommands = new Set<string>();
  const selected = registered.filter((hook) => {
    if (!matcherApplies(hook.matches, target)) return false;
    // Claude Code runs an identical command once even when several matchers select it.
    if (hook.run.kind !== "command") return true;
    if (seenCommands.has(hook.run.command)) return false;
    seenCommands.add(hook.run.command);
    return true;
  });
  if (selected.length === 0) return emptyHookResult(event);
  const toolUseID = options.toolUseID ?? (input as { tool_use_id?: string }).tool_use_id;
  const { observer } = options;
  const outcomes = await Promise.all(
    selected.map(async (hook) => {
      const run = observer ? { runId: randomUUID(), hookName: hook.hookName, event } : undefined;
      if (run) observer?.started(run);
      const outcome = await (hook.run.kind === "callback"
        ? runCallbackHook(hook, event, input, toolUseID, options.signal)
        : runCommand(hook, event, input, options));
      if (run) observer?.finished(run, outcome);
      return outcome;
    }),
  );
  return aggregateHookOutcomes(event, outcomes);
}

type Ending = { kind: "returned"; value: unknown } | { kind: "threw"; error: unknown } | { kind: "timeout" };

async function runCallbackHook(
  hook: RegisteredHook,
  event: HookEvent,
  input: HookInput,
  toolUseID: string | undefined,
  parent: AbortSignal,
): Promise<HookOutcome> {
  const started = Date.now();
  const base = outcomeBase(hook, event, "callback");
  if (parent.aborted) return { ...base, outcome: "cancelled", durationMs: 0, error: "run aborted" };
  const controller = new AbortController();
  let onStop: (e: Ending | "aborted") => void = () => {};
  const stopped = new Promise<Ending | "aborted">((resolve) => {
    onStop = resolve;
  });
  const onParentAbort = () => onStop("aborted");
  parent.addEventListener("abort", onParentAbort, { once: true });
  const timer = setTimeout(() => onStop({ kind: "timeout" }), hook.timeoutMs);
  const call = hook.run.kind === "callback" ? hook.run.callback : undefined;
  const running = (async (): Promise<Ending> => {
    try {
      return { kind: "returned", value: await call!(input, toolUseID, { signal: controller.signal }) };
    } catch (error) {
      return { kind: "threw", error };
    }
  })();
  const ending = await Promise.race([running, stopped]);
  clearTimeout(timer);
  parent.removeEventListener("abort", onParentAbort);
  // The hook may still be running after a timeout or abort: tell it to stop, and do not wait for it.
  if (ending === "aborted" || ending.kind === "timeout") controller.abort();
  const durationMs = Date.now() - started;
  if (ending === "aborted") return { ...base, outcome: "cancelled", durationMs, error: "run aborted" };
  if (ending.kind === "timeout") {
    return failed(hook, event, base, durationMs, `timed out after ${hook.timeoutMs / 1000} s`);
  }
  if (ending.kind === "threw") {
    return failed(hook, event, base, durationMs, `threw: ${errorText(ending.error)}`);
  }
  const parsed = parseHookOutput(event, ending.value);
  if (!parsed.ok) return failed(hook, event, base, durationMs, parsed.message);
  return { ...base, outcome: "success", output: parsed.output, durationMs };
}

/** Events where plain stdout of a successful command becomes context for the model, as in Claude Code. */
const TEXT_IS_CONTEXT = new Set<HookEvent>(["UserPromptSubmit", "SessionStart"]);

async function runCommand(
  hook: RegisteredHook,
  event: HookEvent,
  input: HookInput,
  options: RunHooksOptions,
): Promise<HookOutcome> {
  const started = Date.now();
  const base = outcomeBase(hook, event, "command");
  const command = hook.run.kind === "command" ? hook.run.command : "";
  const ran = await runCommandHook(command, JSON.stringify(input), {
    cwd: input.cwd,
    projectDir: options.projectDir ?? input.cwd,
    timeoutMs: hook.timeoutMs,
    signal: options.signal,
    env: options.env,
  });
  const durationMs = Date.now() - started;
  const io = { stdout: ran.stdout, stderr: ran.stderr, exitCode: ran.exitCode, durationMs };
  if (ran.aborted) return { ...base, ...io, outcome: "cancelled", error: "run aborted" };
  if (ran.spawnError !== undefined) {
    return {
      ...failed(hook, event, base, durationMs, `could not start in ${input.cwd}: ${ran.spawnError}`),
      ...io,
    };
  }
  if (ran.timedOut) {
    const message = `timed out after ${hook.timeoutMs / 1000} s; process group killed`;
    return { ...failed(hook, event, base, durationMs, message), ...io };
  }
  if (ran.exitCode === 2) {
    const reason = ran.stderr.trim() || `hook command exited with code 2: ${command}`;
    return { ...base, ...io, outcome: "success", output: blockingOutput(event, reason) };
  }
  if (ran.exitCode !== 0) {
    const how = ran.exitCode === null ? "was killed by a signal" : `exited with code ${ran.exitCode}`;
    const detail = ran.stderr.trim() ? `: ${ran.stderr.trim()}` : "";
    return { ...failed(hook, event, base, durationMs, `${how}${detail}`), ...io };
  }
  const parsed = parseCommandStdout(event, ran.stdout);
  if (!parsed.ok) return { ...failed(hook, event, base, durationMs, parsed.message), ...io };
  let output: HookJSONOutput = {};
  if ("output" in parsed) output = parsed.output;
  else if (parsed.text !== "" && TEXT_IS_CONTEXT.has(event)) {
    output = {
      hookSpecificOutput: { hookEventName: event, additionalContext: parsed.text },
    } as HookJSONOutput;
  }
  return { ...base, ...io, outcome: "success", output };
}

function outcomeBase(hook: RegisteredHook, event: HookEvent, kind: "callback" | "command") {
  return { hookId: hook.hookId, hookName: hook.hookName, event, kind, label: hook.label };
}

/** An error outcome; with `onFailure: 'block'` the failure also blocks, with the error as the reason. */
function failed(
  hook: RegisteredHook,
  event: HookEvent,
  base: ReturnType<typeof outcomeBase>,
  durationMs: number,
  message: string,
): HookOutcome {
  const outcome: HookOutcome = { ...base, outcome: "error", durationMs, error: message };
  if (hook.onFailure === "block")
    outcome.output = blockingOutput(event, `hook ${hook.label} failed: ${message}`);
  return outcome;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
