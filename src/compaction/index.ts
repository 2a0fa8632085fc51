/**
 * Context compaction: the default LLM summarizer and the pure helpers it is built from (where to cut
 * a history, how to write it as a transcript, the summary prompt).
 */
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
