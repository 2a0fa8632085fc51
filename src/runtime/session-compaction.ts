/**
 * The session's compaction: the host's `compactor`, else the LLM summarizer on the session's model
 * caller (its calls priced into the session's ledger), wrapped in the PreCompact / PostCompact hook
 * points, each boundary recorded in the transcript.
 */
import { createLlmCompactor } from "../compaction/llm-compactor.js";
import type { Compactor } from "../loop/loop-config.js";
import { meteredModelCaller } from "./metered-caller.js";
import type { RuntimeCore } from "./runtime-core.js";
import type { SessionHooks } from "./session-hooks.js";
import type { SessionProviders } from "./session-providers.js";
import type { SessionTranscript } from "./session-transcript.js";

/** The loop's `compact`, for the session's history. */
export function createSessionCompaction(
  core: RuntimeCore,
  providers: SessionProviders,
  hooks: Pick<SessionHooks, "wrapCompactor">,
  transcript: Pick<SessionTranscript, "binding">,
): Compactor {
  const { session, emit } = core;
  const summarizer =
    core.options.compactor ??
    createLlmCompactor({
      // The summary call is paid for like any other: priced into the session's ledger.
      callModel: meteredModelCaller(providers.callModel, () => ({
        session,
        costOf: providers.costOf,
        contextWindowOf: providers.contextWindowOf,
        maxOutputTokensOf: providers.maxOutputTokensOf,
      })),
      maxSummaryTokens: Math.min(
        8192,
        providers.catalog.get(providers.configuredModel)?.maxOutputTokens ?? 8192,
      ),
      onRetry: (info) => emit({ type: "retry", ...info }),
    });
  return hooks.wrapCompactor(summarizer, (outcome, trigger) =>
    transcript.binding?.recordCompaction({
      trigger,
      preTokens: outcome.preTokens,
      postTokens: outcome.postTokens,
      summary: outcome.summary,
      kept: outcome.messages.filter((m) => m.role !== "custom"),
    }),
  );
}
