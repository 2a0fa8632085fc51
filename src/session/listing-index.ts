/**
 * Listing sessions without reading whole files each time: a cache of each file's summary and of how
 * many bytes it covers, kept beside the files (`.listing-cache.json` in each project folder).
 *
 * Session files are append-only, so a summary can be continued from where it stopped: a file whose
 * size and modification time match its cached entry is not opened at all, a file that grew is read
 * from the cached offset only, and a file that shrank or is new is read once. Every byte of a
 * transcript is read at most once by listings, however often they run. The cache is only a cache:
 * a missing, unreadable or foreign cache file is ignored and rewritten (atomically, by rename), and a
 * cache that another process wrote meanwhile is as good as ours.
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseEntryLine } from "./jsonl-read.js";
import { createInfoAccumulator } from "./session-info.js";
import type { SessionInfo, SessionWarning } from "./types.js";

const CACHE_FILE = ".listing-cache.json";
const CACHE_VERSION = 1;
/** Files summarized between two yields to the event loop. */
const YIELD_EVERY = 500;
/** The read buffer, shared: listings run their reads synchronously, one at a time. */
const CHUNK = Buffer.allocUnsafe(256 * 1024);

/** What the cache keeps per file. */
interface CachedSummary {
  size: number;
  mtimeMs: number;
  /** Bytes of the file the summary covers (up to the end of its last whole line). */
  offset: number;
  info: Omit<SessionInfo, "lastModified">;
}

interface CacheFile {
  version: number;
  files: Record<string, CachedSummary>;
}

/** Summaries of the session files of one project folder, newest data, least reading. */
export async function summarizeFolder(
  dir: string,
  names: string[],
  warn: (warning: SessionWarning) => void,
): Promise<SessionInfo[]> {
  const cache = await readCache(dir);
  const next: Record<string, CachedSummary> = {};
  let changed = false;
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
    let cached: CachedSummary | undefined = cache.files[name];
    if (cached !== undefined && (cached.info.sessionId !== sessionId || stats.size < cached.offset)) {
      cached = undefined; // rewritten or foreign: start over
    }
    if (cached === undefined || cached.size !== stats.size || cached.mtimeMs !== stats.mtimeMs) {
      const summary = continueSummary(path, sessionId, cached, warn);
      if (summary === undefined) continue;
      changed = true;
      cached = { ...summary, size: stats.size, mtimeMs: stats.mtimeMs };
    }
    next[name] = cached;
    infos.push({ ...cached.info, lastModified: stats.mtimeMs });
  }
  if (changed || Object.keys(cache.files).length !== Object.keys(next).length) await writeCache(dir, next);
  return infos;
}

/** Reads a file from where its cached summary stopped (or from the start) and extends the summary. */
function continueSummary(
  path: string,
  sessionId: string,
  cached: CachedSummary | undefined,
  warn: (warning: SessionWarning) => void,
): Omit<CachedSummary, "size" | "mtimeMs"> | undefined {
  const acc = createInfoAccumulator(sessionId, cached?.info);
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined; // deleted meanwhile
  }
  // Whole lines only: a line still being written is left for the next listing.
  let position = cached?.offset ?? 0;
  let end = position;
  let lineNo = 0;
  let carry = Buffer.alloc(0);
  try {
    for (;;) {
      const bytesRead = readSync(fd, CHUNK, 0, CHUNK.length, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const data =
        carry.length > 0
          ? Buffer.concat([carry, CHUNK.subarray(0, bytesRead)])
          : CHUNK.subarray(0, bytesRead);
      let start = 0;
      for (let nl = data.indexOf(0x0a, start); nl !== -1; nl = data.indexOf(0x0a, start)) {
        lineNo++;
        const line = data.toString("utf8", start, nl);
        start = nl + 1;
        if (line.trim() === "") continue;
        const parsed = parseEntryLine(line);
        if (typeof parsed === "string")
          warn({ sessionId, path, line: lineNo, message: `unreadable line skipped: ${parsed}` });
        else acc.add(parsed);
      }
      carry = Buffer.from(data.subarray(start));
      end = position - carry.length;
    }
  } finally {
    closeSync(fd);
  }
  const { lastModified: _, ...info } = acc.finish(0);
  return { offset: end, info };
}

function statOrUndefined(path: string): { size: number; mtimeMs: number } | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

async function readCache(dir: string): Promise<CacheFile> {
  try {
    const parsed = JSON.parse(await readFile(join(dir, CACHE_FILE), "utf8")) as CacheFile;
    if (parsed?.version === CACHE_VERSION && typeof parsed.files === "object" && parsed.files !== null) {
      return parsed;
    }
  } catch {
    // Missing or unreadable: rebuilt below.
  }
  return { version: CACHE_VERSION, files: {} };
}

async function writeCache(dir: string, files: Record<string, CachedSummary>): Promise<void> {
  const path = join(dir, CACHE_FILE);
  const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    await writeFile(temp, JSON.stringify({ version: CACHE_VERSION, files }));
    await rename(temp, path);
  } catch {
    // A read-only folder or a full disk: listing still works, just without the cache.
  }
}
