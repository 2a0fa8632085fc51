/**
 * The session helpers of the public API: list, read a transcript, find the latest session of a cwd
 * (`continue: true`), load a session for `resume` / `resumeSessionAt`, and fork one (`forkSession`).
 * Each takes a store; without one they use a JSONL store under `$GOAT_HOME` (made per call, so nothing
 * is shared between callers).
 */

import { randomUUID } from "node:crypto";
import { SessionNotFoundError } from "../errors.js";
import type { Message } from "../llm/types.js";
import { forkEntries } from "./fork.js";
import { createJsonlSessionStore } from "./jsonl-store.js";
import { buildResumeState, transcriptMessages } from "./resume.js";
import type { ResumeState, SessionEntry, SessionInfo, SessionStore } from "./types.js";

/** Options shared by the helpers. */
export interface SessionHelperOptions {
  /** Defaults to the JSONL store under `$GOAT_HOME` or `~/.goat`. */
  store?: SessionStore;
}

/** Sessions newest first (by last modification), optionally only those started in `cwd`. */
export async function listSessions(
  options: SessionHelperOptions & { cwd?: string; limit?: number } = {},
): Promise<SessionInfo[]> {
  const store = options.store ?? createJsonlSessionStore();
  const listed = await store.list(options.cwd !== undefined ? { cwd: options.cwd } : undefined);
  // A subagent's transcript (`<parent id>.agent-<agent id>`) belongs to its parent's session.
  const infos = listed.filter((info) => !isSubagentSessionId(info.sessionId));
  infos.sort((a, b) => b.lastModified - a.lastModified);
  return options.limit !== undefined ? infos.slice(0, options.limit) : infos;
}

/** Whether `sessionId` names a subagent's transcript (`<parent id>.agent-<agent id>`), not a session. */
export function isSubagentSessionId(sessionId: string): boolean {
  return sessionId.includes(".agent-");
}

/** The transcript of a session's active branch, every message once. Throws for an unknown session. */
export async function getSessionMessages(
  sessionId: string,
  options: SessionHelperOptions = {},
): Promise<Message[]> {
  const entries = await loadOrThrow(options.store ?? createJsonlSessionStore(), sessionId, false);
  return transcriptMessages(entries);
}

/** The most recently modified session started in `cwd`, for `continue: true`; undefined when none. */
export async function mostRecentSession(cwd: string, store?: SessionStore): Promise<SessionInfo | undefined> {
  return (await listSessions({ cwd, store, limit: 1 }))[0];
}

/**
 * Loads what resuming a session needs: only the tail after the last compaction is read into memory,
 * unless `resumeAt` names an earlier entry, which needs the whole file. Throws for an unknown session.
 */
export async function loadResumeState(
  sessionId: string,
  options: SessionHelperOptions & { resumeAt?: string } = {},
): Promise<ResumeState> {
  const store = options.store ?? createJsonlSessionStore();
  let entries = await loadOrThrow(store, sessionId, true);
  if (options.resumeAt !== undefined && !entries.some((e) => e.uuid === options.resumeAt)) {
    entries = await loadOrThrow(store, sessionId, false);
  }
  return buildResumeState(entries, { resumeAt: options.resumeAt });
}

/**
 * Copies a session's active branch (up to `upTo` if given) into a new session, written to the store.
 * Returns the new id and its entries; the original is untouched.
 */
export async function forkSession(
  sessionId: string,
  options: SessionHelperOptions & { newSessionId?: string; upTo?: string } = {},
): Promise<{ sessionId: string; entries: SessionEntry[] }> {
  const store = options.store ?? createJsonlSessionStore();
  const newSessionId = options.newSessionId ?? randomUUID();
  const entries = forkEntries(await loadOrThrow(store, sessionId, false), newSessionId, {
    upTo: options.upTo,
  });
  await store.append(newSessionId, entries);
  return { sessionId: newSessionId, entries };
}

async function loadOrThrow(store: SessionStore, sessionId: string, fromLastBoundary: boolean) {
  const entries = await store.load(sessionId, { fromLastBoundary });
  if (entries === undefined) throw new SessionNotFoundError(sessionId);
  return entries;
}
