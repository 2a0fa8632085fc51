/**
 * `goat-agent/session`: session transcripts. The `SessionStore` contract and its two stores (JSONL files
 * under `$GOAT_HOME`, and memory), the helpers that list, read, resume and fork sessions, where files
 * live, and the pieces a store of your own is built from (the entry types, the recorder, transcript
 * repair). `listSessions`, `getSessionMessages` and `forkSession` are also exported from the root.
 *
 * @example
 * import { createJsonlSessionStore, listSessions } from "goat-agent/session";
 * const sessions = await listSessions(process.cwd(), { store: createJsonlSessionStore() });
 */

// ---- Listing, reading, resuming and forking ----

export { SessionNotFoundError } from "../errors.js";
export {
  forkSession,
  getSessionMessages,
  isSubagentSessionId,
  listSessions,
  loadResumeState,
  mostRecentSession,
  type SessionHelperOptions,
} from "./api.js";
export { type ForkOptions, forkEntries } from "./fork.js";
export { type BuildResumeOptions, buildResumeState, summaryText, transcriptMessages } from "./resume.js";
export { promptPreview } from "./session-info.js";

// ---- Stores and where they keep files ----

export {
  createJsonlSessionStore,
  type JsonlSessionStore,
  type JsonlSessionStoreOptions,
} from "./jsonl-store.js";
export { createInMemorySessionStore } from "./memory-store.js";
export { goatHome, projectKey, sessionFilePath } from "./paths.js";

// ---- Writing and repairing transcripts ----

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
export type * from "./types.js";
