/**
 * A model caller whose answers are priced into the session's cost ledger as they arrive, for the calls
 * the loop does not make itself: the compaction summary and the small/fast model's side calls. The
 * loop prices its own calls (src/loop/loop.ts); without this, a session's other calls would be paid
 * for but never counted in `total_cost_usd`, `run_cost_usd`, `modelUsage` or `maxBudgetUsd`.
 */
import type { Usage } from "../llm/types.js";
import { emptyUsage } from "../llm/types.js";
import { type LoopSession, recordUsage } from "../loop/context.js";
import type { ModelCaller } from "../loop/loop-config.js";

/** Where a metered call is billed: the session's ledger and the prices and limits of each model. */
export interface CostLedger {
  session: LoopSession;
  costOf: (model: string, usage: Usage) => number;
  contextWindowOf: (model: string) => number | undefined;
  maxOutputTokensOf: (model: string) => number | undefined;
}

/**
 * Wraps `callModel` so each finished answer is recorded in `ledger()` under the model that gave it (a
 * fallback model's answer at its own price). The events pass through unchanged.
 * @example createLlmCompactor({ callModel: meteredModelCaller(callModel, () => ledger) })
 */
export function meteredModelCaller(callModel: ModelCaller, ledger: () => CostLedger): ModelCaller {
  return (model, request, onRetry, onFallback) => {
    let billed = model;
    const stream = callModel(model, request, onRetry, (fallback, cause) => {
      billed = fallback;
      onFallback?.(fallback, cause);
    });
    return {
      async *[Symbol.asyncIterator]() {
        for await (const event of stream) {
          if (event.type === "message_end") {
            const l = ledger();
            const usage = event.message.usage ?? emptyUsage();
            recordUsage(l.session, billed, usage, l.costOf(billed, usage), {
              contextWindow: l.contextWindowOf(billed),
              maxOutputTokens: l.maxOutputTokensOf(billed),
            });
          }
          yield event;
        }
      },
    };
  };
}
