/**
 * Goat's built-in slash commands at a `query()` prompt, as Claude Code takes them from an SDK host:
 * `/compact [instructions]` summarises the history now (the same path as `Query.compact()`, its
 * PreCompact hooks and compact boundary) and the run ends with a result, without a model turn.
 * Custom commands (`slashCommands`) are expanded by the runtime instead (`runtime/custom-commands.ts`).
 */
import { emptyUsage } from "../llm/types.js";
import type { AgentMessage } from "../loop/events.js";
import type { RunOutcome } from "../loop/loop.js";
import type { Runtime } from "./runtime.js";

/** A built-in command a prompt names. */
export interface BuiltinCommandCall {
  name: "compact";
  args: string;
}

/** The built-in command `message` is (its whole text `/compact …`), or undefined. */
export function builtinCommandOf(message: AgentMessage): BuiltinCommandCall | undefined {
  if (message.role !== "user" || typeof message.content !== "string") return undefined;
  const match = /^\/compact(?:\s+([\s\S]*))?$/.exec(message.content.trim());
  return match ? { name: "compact", args: (match[1] ?? "").trim() } : undefined;
}

/** Runs a built-in command as one run; its outcome becomes the run's result message. */
export async function runBuiltinCommand(call: BuiltinCommandCall, runtime: Runtime): Promise<RunOutcome> {
  const started = Date.now();
  const outcome: RunOutcome = {
    exitReason: "end_turn",
    numTurns: 0,
    steps: [],
    stopReason: null,
    resultText: "",
    errors: [],
    apiDurationMs: 0,
    usage: emptyUsage(),
    costUsd: 0,
    permissionDenials: [],
  };
  const costBefore = runtime.session.totalCostUsd;
  try {
    await runtime.compactNow(call.args || undefined);
    outcome.resultText = "Compacted the conversation.";
  } catch (error) {
    outcome.exitReason = "error";
    outcome.errors = [`/compact failed: ${error instanceof Error ? error.message : String(error)}`];
  }
  outcome.apiDurationMs = Date.now() - started;
  outcome.costUsd = runtime.session.totalCostUsd - costBefore;
  return outcome;
}
