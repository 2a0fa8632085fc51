/**
 * The listing index of a project folder (`.listing-index` beside the transcripts, JSON lines): one
 * line per summary of a transcript, saying how many bytes of it the summary covers and the file's
 * size and modification time when it was made.
 *
 * Lines are only ever appended, by the store as it writes (a session's record after each run and when
 * it closes) and by listings (for files they had to read), so keeping the index current costs one
 * small append, never a rewrite, and any number of processes can add to it. A listing rewrites it
 * (atomically, by rename) only when most of its lines are superseded. The index is only a cache: a
 * record is trusted as is only when the file's size and time still match, continued from its offset
 * when the file grew, and ignored when the file shrank; a torn, foreign or lost line costs a re-read,
 * never a wrong listing.
 */
import {
  closeSync,
  fstatSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { ScannedSummary } from "./listing-scan.js";
import { PRIVATE_FILE_MODE } from "./private-files.js";

/** The index file's name in each project folder. */
export const INDEX_FILE = ".listing-index";
/** Index size from which appends that cross a power of two rewrite it (see appendIndexRecords). */
const COMPACT_FROM = 1024 * 1024;
/** The cache file of earlier versions, removed when the index is rewritten. */
const OLD_CACHE_FILE = ".listing-cache.json";

/** One summary of one transcript. */
export interface IndexRecord extends ScannedSummary {
  /** The transcript's file name (`<session id>.jsonl`). */
  name: string;
  /** The file's size and modification time when the summary was made. */
  size: number;
  mtimeMs: number;
}

/** The index as read: the best record of each file, and how many lines the file holds. */
export interface LoadedIndex {
  records: Map<string, IndexRecord>;
  lines: number;
}

/**
 * Reads a folder's index. Of several records for one file the one covering the most bytes wins (the
 * latest of those): appends from several processes may arrive out of order. Unreadable lines are
 * skipped; a missing index is empty.
 */
export function readIndex(dir: string): LoadedIndex {
  const records = new Map<string, IndexRecord>();
  let text: string;
  try {
    text = readFileSync(join(dir, INDEX_FILE), "utf8");
  } catch {
    return { records, lines: 0 };
  }
  let lines = 0;
  for (let start = 0; start < text.length; ) {
    let nl = text.indexOf("\n", start);
    if (nl === -1) nl = text.length;
    const record = parseRecord(text.slice(start, nl));
    start = nl + 1;
    if (record === undefined) continue;
    lines++;
    const known = records.get(record.name);
    if (known === undefined || record.offset >= known.offset) records.set(record.name, record);
  }
  return { records, lines };
}

/**
 * Appends records to a folder's index in one write. Failures are swallowed: without the index,
 * listings still work, reading more.
 *
 * A process that runs many sessions and never lists would grow the index by a record per run, so an
 * append that takes the file past a power of two from 1 MiB on also rewrites it with one record per
 * file: the rewrites cost a read of the index per doubling, a few bytes per record amortized.
 */
export function appendIndexRecords(dir: string, records: IndexRecord[]): void {
  if (records.length === 0) return;
  const path = join(dir, INDEX_FILE);
  // Starting with a line break: a line torn by a crash mid-append must not swallow the first record.
  const text = `\n${records.map((r) => JSON.stringify(r)).join("\n")}\n`;
  let size: number;
  try {
    const fd = openSync(path, "a", PRIVATE_FILE_MODE);
    try {
      writeSync(fd, text);
      size = fstatSync(fd).size;
    } finally {
      closeSync(fd);
    }
  } catch {
    return; // a read-only folder or a full disk: listing still works, just without the index
  }
  const before = size - Buffer.byteLength(text);
  if (size >= COMPACT_FROM && Math.clz32(before) !== Math.clz32(size)) {
    rewriteIndex(dir, readIndex(dir).records.values());
  }
}

/** Rewrites a folder's index with just `records` (temp file and rename, so readers never see half). */
export function rewriteIndex(dir: string, records: Iterable<IndexRecord>): void {
  const path = join(dir, INDEX_FILE);
  const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  let text = "";
  for (const r of records) text += `${JSON.stringify(r)}\n`;
  try {
    writeFileSync(temp, text, { mode: PRIVATE_FILE_MODE });
    renameSync(temp, path);
  } catch {
    try {
      unlinkSync(temp);
    } catch {
      // Never written.
    }
    return;
  }
  try {
    unlinkSync(join(dir, OLD_CACHE_FILE));
  } catch {
    // Usually absent.
  }
}

/** True when so many of the index's lines are superseded that a rewrite is worth it. */
export function indexNeedsRewrite(lines: number, live: number): boolean {
  return lines - live > Math.max(64, live);
}

function parseRecord(line: string): IndexRecord | undefined {
  let value: IndexRecord;
  try {
    value = JSON.parse(line) as IndexRecord;
  } catch {
    return undefined; // torn by a crash mid-append, or not ours
  }
  const ok =
    typeof value === "object" &&
    value !== null &&
    typeof value.name === "string" &&
    typeof value.size === "number" &&
    typeof value.mtimeMs === "number" &&
    typeof value.offset === "number" &&
    value.offset <= value.size &&
    typeof value.info === "object" &&
    value.info !== null &&
    typeof value.info.sessionId === "string" &&
    typeof value.info.messageCount === "number" &&
    typeof value.info.totalCostUsd === "number";
  return ok ? value : undefined;
}
