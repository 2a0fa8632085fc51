/**
 * The session data model: the entries a transcript is made of, and the storage contract.
 *
 * A session is an append-only list of entries, one JSON object per line in the default store. Entries
 * form a tree through `parentUuid` (a resume at an earlier point starts a branch); the active branch
 * is the chain from the latest entry (or a chosen one) back to the root. Everything here is plain
 * JSON so users can keep sessions in their own storage.
 */
import type { AssistantMessage, Message, Usage, UserMessage } from "../llm/types.js";

/** Fields every entry carries. */
export interface EntryBase {
  uuid: string;
  /** The entry this one follows on its branch; null only for the header. */
  parentUuid: string | null;
  /** ISO 8601 time the entry was made. */
  timestamp: string;
  sessionId: string;
}

/** First entry of every session: where and with what it started. */
export interface HeaderEntry extends EntryBase {
  type: "header";
  cwd: string;
  model?: string;
  /** Goat version that created the session. */
  version: string;
  /** ISO time the session was created (for a fork: the time of the fork). */
  createdAt: string;
  /** Set on a fork: the session and entry it was copied from. */
  forkedFrom?: { sessionId: string; uuid: string };
}

/**
 * A user-side message: a prompt, tool results, or both. `copy_of` marks a message re-written after a
 * compaction boundary (the verbatim tail); it names the original entry, so transcripts skip the copy.
 */
export interface UserEntry extends EntryBase {
  type: "user";
  message: UserMessage;
  copy_of?: string;
}

/** A message written by the model. `copy_of` as on UserEntry. */
export interface AssistantEntry extends EntryBase {
  type: "assistant";
  message: AssistantMessage;
  copy_of?: string;
  /** What the model call that wrote it cost in USD, priced as the run's totals are (absent on copies). */
  cost_usd?: number;
}

/**
 * A compaction: everything before it on the branch is replaced by `summary`. The messages kept verbatim
 * are appended again right after the boundary (as entries with `copy_of`), so resuming needs only the
 * boundary and what follows it; `kept_uuids` names the originals for tracing.
 */
export interface CompactBoundaryEntry extends EntryBase {
  type: "compact_boundary";
  trigger: "manual" | "auto";
  pre_tokens: number;
  post_tokens: number;
  summary: string;
  kept_uuids: string[];
}

/** The model was switched mid-session. */
export interface ModelChangeEntry extends EntryBase {
  type: "model_change";
  model: string;
}

/** The end of one run (one `query()` turn): its own figures, not cumulative ones. */
export interface ResultEntry extends EntryBase {
  type: "result";
  /** `success` or an `error_*` subtype, as on the SDK result message. */
  subtype: string;
  num_turns: number;
  total_cost_usd: number;
  usage: Usage;
  duration_ms: number;
  /** A failed run's error texts (the result message's `errors`), the last one what stopped it. */
  errors?: string[];
}

/** Free-form data a user or plugin wants in the transcript; never sent to the model. */
export interface CustomEntry extends EntryBase {
  type: "custom";
  name: string;
  data?: unknown;
}

/** One line of a session transcript. */
export type SessionEntry =
  | HeaderEntry
  | UserEntry
  | AssistantEntry
  | CompactBoundaryEntry
  | ModelChangeEntry
  | ResultEntry
  | CustomEntry;

/** The `type` of an entry. */
export type SessionEntryType = SessionEntry["type"];

/** An entry without its envelope (uuid, parentUuid, timestamp, sessionId): what a caller records. */
export type EntryPayload = SessionEntry extends infer E
  ? E extends SessionEntry
    ? Omit<E, keyof EntryBase>
    : never
  : never;

/** What `list` says about one session. */
export interface SessionInfo {
  sessionId: string;
  cwd: string;
  /** Text of the first prompt (truncated), or "" when there is none yet. */
  firstPrompt: string;
  /** Milliseconds since the epoch of the last write. */
  lastModified: number;
  /** User and assistant messages written (compaction copies not counted). */
  messageCount: number;
  /** Sum of the runs' costs. */
  totalCostUsd: number;
  /** The latest model (from a model change or the header). */
  model?: string;
}

/** Options of `SessionStore.load`. */
export interface LoadOptions {
  /**
   * A hint that only the header, `result` and `model_change` entries and everything from the last
   * compaction boundary on are needed (what a resume uses). Stores may ignore it and return everything.
   */
  fromLastBoundary?: boolean;
}

/** A problem found while reading a transcript that did not stop the load (e.g. a torn line). */
export interface SessionWarning {
  sessionId: string;
  /** File (or other location) read. */
  path?: string;
  /** 1-based line number. */
  line?: number;
  message: string;
}

/**
 * Where sessions live. Implement it to keep transcripts in your own storage; `append` must keep the
 * order of calls for one session and must not mix sessions.
 */
export interface SessionStore {
  /** Appends entries in order. The first append of a session must start with its header. */
  append(sessionId: string, entries: SessionEntry[]): Promise<void>;
  /** All entries in write order (or a subset, see LoadOptions); undefined when the session is unknown. */
  load(sessionId: string, options?: LoadOptions): Promise<SessionEntry[] | undefined>;
  /** Sessions, optionally of one cwd, in no particular order (the helpers sort). */
  list(options?: { cwd?: string }): Promise<SessionInfo[]>;
  /** Removes a session; a no-op for an unknown id. */
  delete(sessionId: string): Promise<void>;
  /** Releases open files; the store still works after (it reopens on demand). */
  close?(): Promise<void>;
}

/** What a resumed session needs in memory for its next model call. */
export interface ResumeState {
  /** The active branch since the last compaction (summary first), repaired for the provider. */
  messages: Message[];
  /** The summary of the last compaction on the branch, if any. */
  summary?: string;
  /** The latest model chosen in the session, if any was recorded. */
  model?: string;
  /** Sum of the recorded runs' costs. */
  totalCostUsd: number;
  /** Sum of the recorded runs' turns. */
  numTurns: number;
  /** The entry new entries must use as parentUuid (the chosen leaf). */
  lastUuid: string;
  /** Tool calls that had no result and got an "interrupted" one (not re-run). */
  interruptedToolUseIds: string[];
  /** The session's header, when it was among the entries. */
  header?: HeaderEntry;
}
