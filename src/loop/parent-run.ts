/**
 * A subagent draws from its parent's run: the parent's limits bind the child too, and what the child
 * spends is charged to the parent as it happens.
 *
 * - Turns: each model call, the parent's or a child's, counts once against the parent's `maxTurns`
 *   (`RunTally.modelCalls`). A call is charged when it starts, after a last check of the limits, so
 *   subagents running side by side can never together pass the limit. A child's own `maxTurns` still
 *   applies: it stops at whichever comes first.
 * - Budget: a child's cost is added to the parent's session as each call finishes (recordUsage), so
 *   the parent's `maxBudgetUsd` sees every child at once, and each child stops once it is spent.
 * - Stop conditions: after each of its steps, a child evaluates the parent's `stopWhen` on the
 *   parent's steps followed by its own (renumbered, costs as the parent's run totals). When one holds
 *   the child stops, and the parent stops too once its current tool calls are answered.
 * - Abort: the child's signal follows the parent's (src/runtime/subagents.ts).
 */
import type { LoopSession } from "./context.js";
import type { ExitReason } from "./events.js";
import { type StepResult, shouldStop } from "./stop-conditions.js";

/** A limit of an ancestor run that ends this one. */
export interface ParentLimit {
  exit: ExitReason;
  message: string;
}

/** Counts `calls` model calls against this run and every run above it. */
export function chargeModelCalls(session: LoopSession, calls: number): void {
  for (let s: LoopSession | undefined = session; s; s = s.parentRun?.session) {
    if (s.run) s.run.modelCalls += calls;
  }
}

/** The first limit of an ancestor run that is reached (turns, budget, a met stop condition), if any. */
export function parentLimitReached(session: LoopSession): ParentLimit | undefined {
  for (let p = session.parentRun; p; p = p.session.parentRun) {
    const run = p.session.run;
    if (p.maxTurns !== undefined && p.maxTurns > 0 && run && run.modelCalls >= p.maxTurns) {
      return {
        exit: "max_turns",
        message: `Reached the parent agent's maximum number of turns (${p.maxTurns}), which its subagents share.`,
      };
    }
    if (p.maxBudgetUsd !== undefined && p.session.totalCostUsd >= p.maxBudgetUsd) {
      return {
        exit: "max_budget",
        message: `Reached the parent agent's maximum budget ($${p.maxBudgetUsd}), which its subagents share.`,
      };
    }
    if (run?.stopRequested) {
      return { exit: "predicate", message: "The parent agent's stop condition (stopWhen) was met." };
    }
  }
  return undefined;
}

/** True when an ancestor run's budget is spent. */
export function parentBudgetSpent(session: LoopSession): boolean {
  for (let p = session.parentRun; p; p = p.session.parentRun) {
    if (p.maxBudgetUsd !== undefined && p.session.totalCostUsd >= p.maxBudgetUsd) return true;
  }
  return false;
}

/** True when the session is a subagent's whose ancestors have stop conditions. */
export function hasParentStopConditions(session: LoopSession): boolean {
  for (let p = session.parentRun; p; p = p.session.parentRun) {
    if (p.stopWhen && p.stopWhen.length > 0) return true;
  }
  return false;
}

/**
 * Evaluates each ancestor's stop conditions on its steps followed by this run's `steps`. When one
 * holds, that ancestor is asked to stop (`stopRequested`) and true is returned.
 */
export async function parentStopConditionMet(
  session: LoopSession,
  steps: readonly StepResult[],
  onError: (error: unknown, index: number) => void,
): Promise<boolean> {
  for (let p = session.parentRun; p; p = p.session.parentRun) {
    const run = p.session.run;
    if (!p.stopWhen || p.stopWhen.length === 0 || !run) continue;
    const combined = [
      ...run.steps,
      ...asParentSteps(steps, run.steps.length, p.session.totalCostUsd - run.costAtStart),
    ];
    if (await shouldStop(p.stopWhen, combined, onError)) {
      run.stopRequested = true;
      return true;
    }
  }
  return false;
}

/** A child's steps as the parent's next steps: numbered after them, costs as the parent's run totals. */
function asParentSteps(steps: readonly StepResult[], before: number, parentRunCost: number): StepResult[] {
  const childTotal = steps.at(-1)?.totalCostUsd ?? 0;
  return steps.map((s, i) => ({
    ...s,
    step: before + i + 1,
    totalCostUsd: parentRunCost - (childTotal - s.totalCostUsd),
  }));
}
