/**
 * Builds the `result` message that closes each run, mapping the loop's exit reasons (`ExitReason`) onto the Claude
 * Agent SDK's result subtypes.
 */
import { randomUUID } from "node:crypto";
import type { ExitReason, LoopSession, RunOutcome } from "../runtime/session.js";
import type { StructuredVerdict } from "../runtime/structured-output.js";
import type { SDKResultMessage } from "./sdk-messages.js";

/**
 * `end_turn`, `predicate`, `stop_sequence` and `hook` are normal ends (a stop sequence or a hook's
 * `continue: false` is something the user asked for); limits have their own subtypes; everything
 * else is an error during execution.
 */
function resultSubtype(exit: ExitReason): SDKResultMessage["subtype"] {
  switch (exit) {
    case "end_turn":
    case "predicate":
    case "stop_sequence":
    case "hook":
      return "success";
    case "max_turns":
      return "error_max_turns";
    case "max_budget":
      return "error_max_budget_usd";
    default:
      return "error_during_execution";
  }
}

const TERMINAL_REASONS: Record<ExitReason, string> = {
  end_turn: "completed",
  predicate: "completed",
  stop_sequence: "completed",
  hook: "hook_stopped",
  max_turns: "max_turns",
  max_budget: "budget_exhausted",
  max_tokens: "model_error",
  interrupted: "aborted_streaming",
  aborted: "aborted_streaming",
  error: "api_error",
};

/** The result message of one run. Cost and model usage are the session's running totals. */
export function buildResultMessage(
  outcome: RunOutcome,
  session: LoopSession,
  sessionId: string,
  durationMs: number,
): SDKResultMessage {
  const subtype = resultSubtype(outcome.exitReason);
  const common = {
    type: "result" as const,
    uuid: randomUUID(),
    session_id: sessionId,
    duration_ms: durationMs,
    duration_api_ms: outcome.apiDurationMs,
    num_turns: outcome.numTurns,
    stop_reason: outcome.stopReason,
    total_cost_usd: session.totalCostUsd,
    run_cost_usd: outcome.costUsd,
    session_total_cost_usd: session.priorCostUsd + session.totalCostUsd,
    usage: { ...outcome.usage },
    modelUsage: structuredClone(session.modelUsage),
    permission_denials: outcome.permissionDenials.slice(),
    exit_reason: outcome.exitReason,
    terminal_reason: TERMINAL_REASONS[outcome.exitReason],
  };
  if (subtype === "success") return { ...common, subtype, is_error: false, result: outcome.resultText };
  return { ...common, subtype, is_error: true, errors: outcome.errors.slice(), result: outcome.resultText };
}

/**
 * A successful result with the run's `structured_output`, or made `error_max_structured_output_retries`
 * when the attempts ran out without one. A failed run's result stays as it is.
 */
export function withStructuredVerdict(
  result: SDKResultMessage,
  verdict: StructuredVerdict | undefined,
): SDKResultMessage {
  if (!verdict || result.subtype !== "success") return result;
  if ("output" in verdict) return { ...result, structured_output: verdict.output };
  return {
    ...result,
    subtype: "error_max_structured_output_retries",
    is_error: true,
    terminal_reason: "structured_output_retry_exhausted",
    errors: [verdict.exhausted],
  };
}
