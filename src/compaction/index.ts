/**
 * `goat-agent/compaction`: context compaction. The default LLM summarizer `query()` uses
 * (`createLlmCompactor`, a `Compactor`), and the pure helpers it is built from: where a history may be
 * cut without splitting a tool call from its result, how it is written out for the summary call, and
 * the summary prompt. Pass your own `Compactor` as the `compactor` option, or build one from these.
 */
export { CompactionError } from "../errors.js";
export {
  type CompactionPlan,
  findCutPoint,
  isCompactionSummary,
  planCompaction,
  type TokenEstimator,
  validCutPoints,
} from "./cut-point.js";
export {
  type CompactionSummaryDetails,
  createLlmCompactor,
  DEFAULT_KEEP_RECENT_TOKENS,
  DEFAULT_MAX_SUMMARY_TOKENS,
  type LlmCompactorOptions,
} from "./llm-compactor.js";
export { buildSummaryPrompt, extractSummary, SUMMARY_SYSTEM_PROMPT, SUMMARY_TEMPLATE } from "./prompt.js";
export {
  DEFAULT_TRANSCRIPT_LIMITS,
  hasEarlierSummary,
  serializeForSummary,
  stripSummaryPrefix,
  TIGHT_TRANSCRIPT_LIMITS,
  type TranscriptLimits,
  truncateMiddle,
} from "./serialize.js";
