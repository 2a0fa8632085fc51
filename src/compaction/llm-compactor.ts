/**
 * The default compactor: summarizes the older part of a history with one model call and keeps the
 * newest messages verbatim. It plugs into the loop as `LoopConfig.compact` (the `Compactor` type), so
 * proactive, reactive (overflow) and manual compaction all go through it.
 */

import { CompactionError } from "../errors.js";
import { accumulate } from "../llm/accumulate.js";
import { isProviderError, type ProviderError } from "../llm/errors.js";
import { textOf } from "../llm/types.js";
import { estimateMessageTokens } from "../loop/context.js";
import type { AgentMessage, CustomAgentMessage } from "../loop/events.js";
import type { Compactor, ModelCaller } from "../loop/loop-config.js";
import { planCompaction, type TokenEstimator } from "./cut-point.js";
import { buildSummaryPrompt, extractSummary, SUMMARY_SYSTEM_PROMPT } from "./prompt.js";
import {
  DEFAULT_TRANSCRIPT_LIMITS,
  hasEarlierSummary,
  serializeForSummary,
  TIGHT_TRANSCRIPT_LIMITS,
  type TranscriptLimits,
} from "./serialize.js";

/** Default size of the verbatim tail, in estimated tokens. */
export const DEFAULT_KEEP_RECENT_TOKENS = 20_000;
/** Default output limit of the summary call. */
export const DEFAULT_MAX_SUMMARY_TOKENS = 8_192;

/** Options of `createLlmCompactor`. */
export interface LlmCompactorOptions {
  /** How to reach the model (the loop's own `callModel`, so retries and fallback apply). */
  callModel: ModelCaller;
  /** Replaces the summary call's system prompt. */
  systemPrompt?: string;
  /** Estimated tokens kept verbatim after the summary (default 20,000). */
  keepRecentTokens?: number;
  /** Output limit of the summary call (default 8,192). */
  maxSummaryTokens?: number;
  /** Token counter (default `estimateMessageTokens`). */
  estimateTokens?: TokenEstimator;
  /** Summarize with this model (`provider/model`) instead of the one the loop is using. */
  model?: string;
  /** Told about retries of the summary call (e.g. to emit `retry` events). */
  onRetry?: Parameters<ModelCaller>[2];
}

/** What the summary message carries in `details`, for programs (never sent to the model). */
export interface CompactionSummaryDetails {
  trigger: "auto" | "manual" | "overflow";
  /** Messages the summary replaced. */
  summarizedMessages: number;
  /** Messages kept verbatim after it. */
  keptMessages: number;
  /** True when the tail was made smaller than `keepRecentTokens` so there was something to summarize. */
  shrunkTail: boolean;
}

/**
 * Builds the default LLM compactor. It returns `[summaryMessage, ...kept]`, where `kept` are the very
 * objects of the input's newest messages; it throws when there is nothing to summarize or the summary
 * call fails (the loop counts those failures).
 */
export function createLlmCompactor(options: LlmCompactorOptions): Compactor {
  const keepTokens = options.keepRecentTokens ?? DEFAULT_KEEP_RECENT_TOKENS;
  const estimate = options.estimateTokens ?? estimateMessageTokens;
  return async (messages, { trigger, signal, model, instructions }) => {
    if (signal.aborted) throw abortError(signal);
    const plan = planCompaction(messages, keepTokens, estimate);
    const summary = await summarize(plan.summarize, {
      ...options,
      model: options.model ?? model,
      signal,
      instructions,
    });
    const details: CompactionSummaryDetails = {
      trigger,
      summarizedMessages: plan.summarize.length,
      keptMessages: plan.kept.length,
      shrunkTail: plan.shrunk,
    };
    const summaryMessage: CustomAgentMessage = {
      role: "custom",
      customType: "compaction_summary",
      content: summary,
      details,
    };
    const compacted: AgentMessage[] = [summaryMessage, ...plan.kept];
    return {
      messages: compacted,
      summary,
      preTokens: estimate(messages),
      postTokens: estimate(compacted),
    };
  };
}

/**
 * One summary call over the transcript of `messages`. When the summary request itself does not fit
 * the model, it is tried once more with a much more tightly cut transcript.
 */
async function summarize(
  messages: AgentMessage[],
  options: LlmCompactorOptions & { model: string; signal: AbortSignal; instructions?: string },
): Promise<string> {
  const earlier = hasEarlierSummary(messages);
  const attempts: TranscriptLimits[] = [DEFAULT_TRANSCRIPT_LIMITS, TIGHT_TRANSCRIPT_LIMITS];
  for (let i = 0; ; i++) {
    const prompt = buildSummaryPrompt(serializeForSummary(messages, attempts[i]), {
      hasEarlierSummary: earlier,
      instructions: options.instructions,
    });
    try {
      const answer = await accumulate(
        options.callModel(
          options.model,
          {
            system: options.systemPrompt ?? SUMMARY_SYSTEM_PROMPT,
            messages: [{ role: "user", content: prompt }],
            maxTokens: options.maxSummaryTokens ?? DEFAULT_MAX_SUMMARY_TOKENS,
            signal: options.signal,
          },
          options.onRetry ?? (() => {}),
        ),
      );
      const summary = extractSummary(textOf(answer));
      if (summary === "") throw new Error("The summary call returned no text.");
      return summary;
    } catch (error) {
      if (options.signal.aborted) throw abortError(options.signal);
      if (isOverflow(error) && i + 1 < attempts.length) continue;
      const reason = error instanceof Error ? error.message : String(error);
      throw new CompactionError(`The summary call to ${options.model} failed: ${reason}`, { cause: error });
    }
  }
}

function isOverflow(error: unknown): error is ProviderError {
  return isProviderError(error) && error.kind === "context_overflow";
}

function abortError(signal: AbortSignal): Error {
  const reason = signal.reason;
  return reason instanceof Error ? reason : new Error("Compaction was aborted.");
}
