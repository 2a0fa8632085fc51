/**
 * Listing the sessions of one project folder with as little reading as possible: each file's record in
 * the listing index (listing-index.ts) is used as is when the file's size and time still match it,
 * continued from its offset when the file grew, and only a file the index does not know is read from
 * the start (listing-scan.ts, which parses only the lines that matter). The store keeps the index
 * current as it writes, so a listing of sessions this version wrote opens no transcript at all.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import {
  appendIndexRecords,
  type IndexRecord,
  indexNeedsRewrite,
  readIndex,
  rewriteIndex,
} from "./listing-index.js";
import { scanTranscript } from "./listing-scan.js";
import type { SessionInfo, SessionWarning } from "./types.js";

/** Files summarized between two yields to the event loop. */
const YIELD_EVERY = 500;

/** Summaries of the session files `names` of the folder `dir`, newest data, least reading. */
export async function summarizeFolder(
  dir: string,
  names: string[],
  warn: (warning: SessionWarning) => void,
): Promise<SessionInfo[]> {
  const index = readIndex(dir);
  const fresh: IndexRecord[] = [];
  const live: IndexRecord[] = [];
  let stale = false;
  const infos: SessionInfo[] = [];
  for (let i = 0; i < names.length; i++) {
    // Synchronous file calls: a thread-pool round trip per file would cost more than the work itself
    // (10,000 sessions). Yield now and then so a long listing does not hold the event loop.
    if (i > 0 && i % YIELD_EVERY === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const name = names[i];
    const path = join(dir, name);
    const stats = statOrUndefined(path);
    if (stats === undefined) continue; // deleted meanwhile
    const sessionId = name.slice(0, -".jsonl".length);
    let record = index.records.get(name);
    if (record !== undefined && (record.info.sessionId !== sessionId || stats.size < record.offset)) {
      record = undefined; // rewritten or foreign: start over, and drop the record from the index
      stale = true;
    }
    if (record === undefined || record.size !== stats.size || record.mtimeMs !== stats.mtimeMs) {
      const summary = scanTranscript(path, sessionId, stats.size, record, warn);
      if (summary === undefined) continue;
      record = { name, size: stats.size, mtimeMs: stats.mtimeMs, ...summary };
      fresh.push(record);
    }
    live.push(record);
    infos.push({ ...record.info, lastModified: stats.mtimeMs });
  }
  if (stale || indexNeedsRewrite(index.lines + fresh.length, live.length)) rewriteIndex(dir, live);
  else appendIndexRecords(dir, fresh);
  return infos;
}

function statOrUndefined(path: string): { size: number; mtimeMs: number } | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
