/**
 * A session store that keeps everything in memory: for tests, and for runs that must leave nothing
 * on disk but still want resume within the process. Entries are copied through JSON on the way in and
 * out, so it behaves like real storage (callers mutating their objects never change what was stored).
 */
import { GoatError } from "../errors.js";
import { createEntryCollector } from "./collect.js";
import { assertSessionId } from "./paths.js";
import { summarizeEntries } from "./session-info.js";
import type { SessionEntry, SessionStore } from "./types.js";

interface StoredSession {
  lines: string[];
  lastModified: number;
}

/** Creates an empty in-memory store; each store is independent. */
export function createInMemorySessionStore(): SessionStore {
  const sessions = new Map<string, StoredSession>();
  // Strictly increasing across the store, so appends in the same millisecond still sort newest first.
  let clock = 0;
  const parse = (lines: string[]) => lines.map((line) => JSON.parse(line) as SessionEntry);

  return {
    async append(sessionId, entries) {
      assertSessionId(sessionId);
      if (entries.length === 0) return;
      for (const entry of entries) {
        if (entry.sessionId !== sessionId) {
          throw new GoatError(
            `Entry ${entry.uuid} belongs to session ${entry.sessionId}, not ${sessionId}.`,
            {
              code: "invalid_entry",
            },
          );
        }
      }
      let session = sessions.get(sessionId);
      if (session === undefined) {
        if (entries[0].type !== "header") {
          throw new GoatError(
            `Session ${sessionId} does not exist yet: its first append must start with a header entry.`,
            { code: "invalid_entry" },
          );
        }
        session = { lines: [], lastModified: 0 };
        sessions.set(sessionId, session);
      }
      for (const entry of entries) session.lines.push(JSON.stringify(entry));
      clock = Math.max(Date.now(), clock + 1);
      session.lastModified = clock;
    },

    async load(sessionId, options) {
      assertSessionId(sessionId);
      const session = sessions.get(sessionId);
      if (session === undefined) return undefined;
      const collector = createEntryCollector(options?.fromLastBoundary === true);
      for (const entry of parse(session.lines)) collector.add(entry);
      return collector.entries();
    },

    async list(options) {
      const infos = [...sessions].map(([id, s]) => summarizeEntries(id, parse(s.lines), s.lastModified));
      return options?.cwd === undefined ? infos : infos.filter((info) => info.cwd === options.cwd);
    },

    async delete(sessionId) {
      sessions.delete(sessionId);
    },
  };
}
