/**
 * Keeping a session's record in the listing index current while the store writes it, so listings
 * never have to read what this process wrote.
 *
 * The store has every entry in hand as an object when it writes, so the summary grows for the price
 * of a `switch` per entry. The record (one small line appended to the folder's index) is written when
 * a run ends (a `result` entry was written) and when the store lets the session go; a crash in between
 * leaves the previous record, from whose offset the next listing reads on. A record is only written
 * while the file holds exactly the bytes the summary covers (the size the tracker expects); anything
 * else (another process appending, a failed write) ends tracking, and listings read for themselves.
 */
import { statSync } from "node:fs";
import { basename, dirname } from "node:path";
import { appendIndexRecords } from "./listing-index.js";
import type { ScannedSummary } from "./listing-scan.js";
import { createInfoAccumulator } from "./session-info.js";
import type { SessionEntry } from "./types.js";

/** The listing summary of one session as this store writes it. */
export interface SummaryTracker {
  /**
   * Adds entries that were just written. Returns true when one of them ends a run (the moment to
   * `record`).
   */
  wrote(entries: SessionEntry[]): boolean;
  /**
   * Appends the session's record to the index if something changed since the last one, given how
   * many bytes the store's writer has added to the file. Returns false when the file holds other bytes
   * than the summary covers: the tracker is then of no further use.
   */
  record(bytesWritten: number): boolean;
}

/**
 * Starts tracking the file at `path`: a new file (no `from`), or one whose first `from.offset` bytes
 * `from` summarizes (what the store's load read). `bytesWritten` counts from the moment tracking starts.
 */
export function trackSummary(path: string, sessionId: string, from?: ScannedSummary): SummaryTracker {
  const acc = createInfoAccumulator(sessionId, from?.info);
  const base = from?.offset ?? 0;
  let dirty = from === undefined;
  return {
    wrote(entries) {
      let runEnded = false;
      for (const entry of entries) {
        acc.add(entry);
        if (entry.type === "result") runEnded = true;
      }
      dirty = true;
      return runEnded;
    },
    record(bytesWritten) {
      if (!dirty) return true;
      let stats: { size: number; mtimeMs: number };
      try {
        stats = statSync(path);
      } catch {
        return false;
      }
      if (stats.size !== base + bytesWritten) return false;
      const { lastModified: _, ...info } = acc.finish(0);
      const record = {
        name: basename(path),
        size: stats.size,
        mtimeMs: stats.mtimeMs,
        offset: stats.size,
        info,
      };
      appendIndexRecords(dirname(path), [record]);
      dirty = false;
      return true;
    },
  };
}
