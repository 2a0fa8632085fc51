/**
 * What the viewer reads: session summaries for the list, and one session's entries with its
 * subagents' transcripts for the detail view. Everything goes through the session store; the only
 * file-system knowledge here is that a subagent's transcript sits beside its parent's, named
 * `<parent id>.agent-<agent id>.jsonl`.
 */
import { readdir, stat } from "node:fs/promises";
import { basename, dirname } from "node:path";
import {
  type JsonlSessionStore,
  type SessionEntry,
  type SessionInfo,
  sessionFilePath,
} from "../../session/index.js";
import type { ViewerEntry } from "./durable-entries.js";
import { withMarkdownTrees } from "./markdown-tree.js";
import { type SessionStatus, sessionStatus } from "./session-status.js";

/** One row of the session list. */
export interface SessionSummary {
  sessionId: string;
  cwd: string;
  firstPrompt: string;
  lastModified: number;
  messageCount: number;
  totalCostUsd: number;
  model?: string;
  /** How the last run ended, or that it is still running (a durable one may also wait in its queue, or be cancelled). */
  status: SessionStatus | "queued" | "cancelled";
  /** Set for a durable session (`goat serve --database`): what an operator watches. */
  durable?: DurableFields;
}

/** What the viewer shows of a durable session besides what every session has. */
export interface DurableFields {
  /** DBOS's status (ENQUEUED, PENDING, SUCCESS, ERROR, CANCELLED …). */
  status: string;
  /** The transcript's session id (the row's `sessionId` is the workflow id, which the viewer routes by). */
  transcriptId: string;
  /** The last recorded step, as "12 name". */
  step?: string;
  worker?: string;
  version?: string;
  /** The workflow's error or its result's errors. */
  error?: string;
}

/** One session as the viewer shows it. */
export interface SessionView {
  sessionId: string;
  /** The transcript's entries (a durable session's messages drawn as entries: `durable-entries.ts`). */
  entries: Array<SessionEntry | ViewerEntry>;
  /** Subagent transcripts by agent id (a durable session's by their Task call's id). */
  subagents: Record<string, Array<SessionEntry | ViewerEntry>>;
  /**
   * Where following it live starts: the transcript's byte length when it was read (local), or the
   * number of messages read (durable).
   */
  offset: number;
  /** Set for a durable session. */
  durable?: DurableFields;
}

const SUBAGENT_MARK = ".agent-";

/** The sessions (of one project, or all), newest first; subagent transcripts are not listed. */
export async function listSessionSummaries(
  store: JsonlSessionStore,
  options: { cwd?: string; search?: string },
): Promise<SessionSummary[]> {
  const needle = options.search?.trim().toLowerCase();
  const sessions = await store.list(options.cwd ? { cwd: options.cwd } : undefined);
  const rows = sessions
    .filter((s) => !s.sessionId.includes(SUBAGENT_MARK))
    .filter(
      (s) =>
        !needle ||
        s.firstPrompt.toLowerCase().includes(needle) ||
        s.cwd.toLowerCase().includes(needle) ||
        s.sessionId.toLowerCase().includes(needle),
    )
    .sort((a, b) => b.lastModified - a.lastModified);
  return Promise.all(
    rows.map(async (s) => {
      const path = await transcriptPath(store, s);
      return {
        sessionId: s.sessionId,
        cwd: s.cwd,
        firstPrompt: s.firstPrompt,
        lastModified: s.lastModified,
        messageCount: s.messageCount,
        totalCostUsd: s.totalCostUsd,
        model: s.model,
        status: path ? await sessionStatus(path, s.lastModified) : "interrupted",
      };
    }),
  );
}

/**
 * Where a listed session's transcript is: in its project's folder, named by its cwd (one `stat`);
 * the store's search over every project folder only when it is not there (two cwds can share a key).
 */
async function transcriptPath(store: JsonlSessionStore, session: SessionInfo): Promise<string | undefined> {
  const direct = sessionFilePath(store.home, session.cwd, session.sessionId);
  const found = await stat(direct).then(
    (s) => s.isFile(),
    () => false,
  );
  return found ? direct : store.pathOf(session.sessionId);
}

/** One session with its subagents, or undefined when there is no such session. */
export async function loadSessionView(
  store: JsonlSessionStore,
  sessionId: string,
): Promise<SessionView | undefined> {
  if (!isSessionId(sessionId)) return undefined;
  const path = await store.pathOf(sessionId);
  if (!path) return undefined;
  // The size first: entries written after it are sent again by the live stream (the page keeps one
  // copy of each by uuid), never lost between the read and the follow.
  const offset = (await stat(path)).size;
  const entries = ((await store.load(sessionId)) ?? []).map(withMarkdownTrees);
  const subagents: Record<string, SessionEntry[]> = {};
  for (const childId of await subagentIds(path, sessionId)) {
    subagents[childId.slice(sessionId.length + SUBAGENT_MARK.length)] = (
      (await store.load(childId)) ?? []
    ).map(withMarkdownTrees);
  }
  return { sessionId, entries, subagents, offset };
}

/** The ids of the subagent transcripts stored beside a session's file. */
export async function subagentIds(sessionPath: string, sessionId: string): Promise<string[]> {
  const prefix = `${sessionId}${SUBAGENT_MARK}`;
  const names = await readdir(dirname(sessionPath)).catch(() => [] as string[]);
  return names
    .filter((name) => name.startsWith(prefix) && name.endsWith(".jsonl"))
    .map((name) => basename(name, ".jsonl"));
}

/** Ids as the stores make them: no path separators, nothing that climbs out of a folder. */
export function isSessionId(id: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/.test(id) && !id.includes("..");
}
