/**
 * Collecting loaded entries for `load(id, { fromLastBoundary })`: at each compaction boundary the
 * collector drops everything a resume can no longer reach, so memory holds only the tail after the
 * last boundary (plus the header and the small per-run records that carry cost and model).
 */
import type { SessionEntry } from "./types.js";

/** Gathers entries in order, pruning at boundaries when asked to. */
export interface EntryCollector {
  add(entry: SessionEntry): void;
  entries(): SessionEntry[];
}

/** Entries a resume needs even from before the last boundary: few per session, never messages. */
function survivesBoundary(entry: SessionEntry): boolean {
  return entry.type === "header" || entry.type === "result" || entry.type === "model_change";
}

/** Creates a collector; with `fromLastBoundary` false it keeps everything. */
export function createEntryCollector(fromLastBoundary: boolean): EntryCollector {
  let kept: SessionEntry[] = [];
  return {
    add(entry) {
      if (fromLastBoundary && entry.type === "compact_boundary") kept = kept.filter(survivesBoundary);
      kept.push(entry);
    },
    entries: () => kept,
  };
}
