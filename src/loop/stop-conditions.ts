/**
 * Stop predicates (the `stopWhen` option: "stop when this holds"): checked after a step's tools ran and before the next model
 * call. Several compose with OR. A predicate that throws counts as "don't stop" and is reported.
 */
import type { AssistantMessage, ToolResultBlock, ToolUseBlock, Usage } from "../llm/types.js";

/** What the loop records about one completed step (one model call and the tools it asked for). */
export interface StepResult {
  /** 1-based step number within the run. */
  step: number;
  message: AssistantMessage;
  toolCalls: ToolUseBlock[];
  toolResults: ToolResultBlock[];
  usage: Usage;
  /** Cost of this step's model call in USD (0 when the model's price is unknown). */
  costUsd: number;
  /** Cost of the whole run so far, in USD. */
  totalCostUsd: number;
}

/** Returns true to stop the run. Receives a copy of the steps list; treat its items as read-only. */
export type StopCondition = (steps: StepResult[]) => boolean | Promise<boolean>;

/** Stops once `count` steps have completed. */
export function stepCountIs(count: number): StopCondition {
  return (steps) => steps.length >= count;
}

/** Stops after a step in which the model called the tool named `toolName`. */
export function hasToolCall(toolName: string): StopCondition {
  return (steps) => steps[steps.length - 1]?.toolCalls.some((c) => c.name === toolName) ?? false;
}

/** Stops once the run has spent at least `usd` dollars. */
export function costExceeds(usd: number): StopCondition {
  return (steps) => (steps[steps.length - 1]?.totalCostUsd ?? 0) >= usd;
}

/** Stops once the run has used at least `tokens` input plus output tokens. */
export function tokensExceed(tokens: number): StopCondition {
  return (steps) => steps.reduce((n, s) => n + s.usage.input_tokens + s.usage.output_tokens, 0) >= tokens;
}

/**
 * Evaluates predicates in order; the first true one stops. A throwing predicate is skipped and passed
 * to `onError`, so a bug in user code cannot end a run by accident.
 */
export async function shouldStop(
  conditions: StopCondition[],
  steps: StepResult[],
  onError: (error: unknown, index: number) => void,
): Promise<boolean> {
  for (let i = 0; i < conditions.length; i++) {
    try {
      if (await conditions[i](steps.slice())) return true;
    } catch (error) {
      onError(error, i);
    }
  }
  return false;
}
