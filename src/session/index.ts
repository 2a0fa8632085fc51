/**
 * Sessions: crash-safe transcripts, resume, continue and fork. What the package exports.
 */
export {
  forkSession,
  getSessionMessages,
  listSessions,
  loadResumeState,
  mostRecentSession,
  type SessionHelperOptions,
} from "./api.js";
export { type ForkOptions, forkEntries } from "./fork.js";
export {
  createJsonlSessionStore,
  type JsonlSessionStore,
  type JsonlSessionStoreOptions,
} from "./jsonl-store.js";
export { createInMemorySessionStore } from "./memory-store.js";
export { goatHome, projectKey, sessionFilePath } from "./paths.js";
export {
  createSessionRecorder,
  makeEntry,
  type SessionRecorder,
  type SessionRecorderOptions,
} from "./recorder.js";
export {
  INTERRUPTED_TOOL_RESULT,
  repairDanglingToolUses,
  repairToolPairs,
  type ToolPairRepair,
} from "./repair.js";
export { type BuildResumeOptions, buildResumeState, summaryText, transcriptMessages } from "./resume.js";
export type * from "./types.js";
