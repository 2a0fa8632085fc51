/**
 * The default session store: one JSONL file per session under `<home>/projects/<project key>/`.
 *
 * Crash safety: every append becomes whole `JSON.stringify(entry) + "\n"` lines written by one
 * synchronous write on a file opened for appending (see jsonl-writer.ts for why synchronous), so a
 * crash can only tear the last line, which `load` skips with a warning. Only finding or creating the
 * file is asynchronous; appends made meanwhile wait in call order. The header entry carries the cwd,
 * so the store places a new session by its header and finds an existing one by id in any project
 * folder. The store keeps each session's record in the folder's listing index current as it writes
 * (listing-tracker.ts), so listings read no transcript this version wrote (listing.ts).
 */

import { readdir, stat, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { GoatError } from "../errors.js";
import { createEntryCollector } from "./collect.js";
import { readEntriesFrom } from "./jsonl-read.js";
import { SessionFileWriter } from "./jsonl-writer.js";
import { summarizeFolder } from "./listing.js";
import type { ScannedSummary } from "./listing-scan.js";
import { type SummaryTracker, trackSummary } from "./listing-tracker.js";
import { assertSessionId, goatHome, projectKey, sessionFilePath } from "./paths.js";
import { ensurePrivateDir } from "./private-files.js";
import { createInfoAccumulator } from "./session-info.js";
import type { LoadOptions, SessionEntry, SessionInfo, SessionStore, SessionWarning } from "./types.js";

/** Options of the JSONL store. */
export interface JsonlSessionStoreOptions {
  /** Root folder; defaults to `$GOAT_HOME` or `~/.goat`. */
  home?: string;
  /**
   * Receives skipped-line warnings, and the one about a folder of the store that other users can
   * read (said once per process); defaults to `process.emitWarning`.
   */
  onWarning?: (warning: SessionWarning) => void;
  /**
   * Wait for each write to reach the disk (fdatasync) before an append resolves, so an OS crash or
   * power loss loses nothing either. Off by default: it costs a disk flush per write (about 0.2 ms on
   * a fast virtual disk, `bench/persist.mjs`; milliseconds on many disks), where the default write
   * (into the OS, safe against a crash of the process) costs about 10 µs.
   */
  fsync?: boolean;
}

/** The JSONL store, with where it writes. */
export interface JsonlSessionStore extends SessionStore {
  readonly home: string;
  /** The file of a session, or undefined when it has none yet. */
  pathOf(sessionId: string): Promise<string | undefined>;
  close(): Promise<void>;
}

interface PendingWrite {
  text: string;
  entries: SessionEntry[];
  header?: SessionEntry;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Per-session write state. Only finding (or creating) the file is asynchronous; appends that arrive
 * meanwhile wait in `queue`, in call order. Once `writer` exists, appends write at once.
 */
interface Slot {
  writer?: SessionFileWriter;
  queue: PendingWrite[];
  /** Set while the file is being found or created. */
  opening?: Promise<void>;
  /** The session's listing summary, while this store knows every byte of the file. */
  tracker?: SummaryTracker;
}

/** Creates the default store. Each store has its own caches (no global state but the open-file cap). */
export function createJsonlSessionStore(options: JsonlSessionStoreOptions = {}): JsonlSessionStore {
  const home = options.home ?? goatHome();
  const projectsDir = join(home, "projects");
  const warn = options.onWarning ?? defaultWarning;
  const fsync = options.fsync === true;
  const slots = new Map<string, Slot>();
  const paths = new Map<string, string>();
  /** Summaries of files `load` read whole, for tracking a session appended to after its load. */
  const loaded = new Map<string, ScannedSummary>();

  async function findPath(sessionId: string): Promise<string | undefined> {
    const cached = paths.get(sessionId);
    if (cached !== undefined) return cached;
    for (const dir of await listDirs(projectsDir)) {
      const candidate = join(projectsDir, dir, `${sessionId}.jsonl`);
      if (await isFile(candidate)) {
        paths.set(sessionId, candidate);
        return candidate;
      }
    }
    return undefined;
  }

  /**
   * Finds the session's file, or places a new one by its header; then writes the queue. A session
   * whose first append starts with its header is new and is placed by the header's cwd at once:
   * searching every project folder for an id nobody has used cost a stat per folder per new session.
   */
  async function open(sessionId: string, slot: Slot): Promise<void> {
    try {
      const header = slot.queue[0]?.header;
      let path = header?.type === "header" ? paths.get(sessionId) : await findPath(sessionId);
      const from = loaded.get(sessionId);
      loaded.delete(sessionId);
      if (path !== undefined && from !== undefined) slot.tracker = trackSummary(path, sessionId, from);
      if (path === undefined) {
        if (header?.type !== "header") {
          throw new GoatError(
            `Session ${sessionId} does not exist yet: its first append must start with a header entry (which carries the cwd).`,
            { code: "invalid_entry" },
          );
        }
        path = sessionFilePath(home, header.cwd, sessionId);
        // Transcripts hold what the session read: their folders are the user's only (private-files.ts).
        const folder = dirname(path);
        await ensurePrivateDir(folder, [home, projectsDir, folder], (message) =>
          warn({ sessionId, message }),
        );
        paths.set(sessionId, path);
        // A reused id's file already holds bytes: the tracker sees the size differ and stops.
        slot.tracker = trackSummary(path, sessionId);
      }
      slot.writer = new SessionFileWriter(path, fsync);
    } catch (error) {
      for (const p of slot.queue.splice(0)) p.reject(error);
      return;
    } finally {
      slot.opening = undefined;
    }
    for (const p of slot.queue.splice(0)) write(slot, p.text, p.entries).then(p.resolve, p.reject);
  }

  /** Writes whole lines; keeps the listing summary, recorded in the index when a run ended. */
  function write(slot: Slot, text: string, entries: SessionEntry[]): Promise<void> {
    const writer = slot.writer as SessionFileWriter;
    let written: Promise<void> | undefined;
    try {
      written = writer.append(text);
    } catch (error) {
      slot.tracker = undefined; // the file may hold part of the text now
      return Promise.reject(error);
    }
    if (slot.tracker?.wrote(entries) && !slot.tracker.record(writer.bytesWritten)) slot.tracker = undefined;
    return written ?? Promise.resolve();
  }

  /** Records the session's listing summary if it changed since the last record. */
  function recordSummary(slot: Slot): void {
    if (
      slot.tracker !== undefined &&
      slot.writer !== undefined &&
      !slot.tracker.record(slot.writer.bytesWritten)
    )
      slot.tracker = undefined;
  }

  /** Resolves once every append queued before the call is written (or failed). */
  async function settled(sessionId: string): Promise<void> {
    await slots.get(sessionId)?.opening;
  }

  /** Closes the session's file, first recording its summary unless the session is being deleted. */
  function release(sessionId: string, record = true): void {
    const slot = slots.get(sessionId);
    if (slot !== undefined && record) recordSummary(slot);
    slot?.writer?.close();
    slots.delete(sessionId);
  }

  return {
    home,
    async pathOf(sessionId) {
      assertSessionId(sessionId);
      return findPath(sessionId);
    },

    // Async so bad arguments reject rather than throw; everything up to the queue push runs
    // synchronously, which is what keeps call order.
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
      const text =
        entries.length === 1
          ? `${JSON.stringify(entries[0])}\n`
          : entries.map((e) => `${JSON.stringify(e)}\n`).join("");
      let slot = slots.get(sessionId);
      if (slot === undefined) {
        slot = { queue: [] };
        slots.set(sessionId, slot);
      }
      if (slot.writer !== undefined && slot.opening === undefined) return write(slot, text, entries);
      const header = entries[0]?.type === "header" ? entries[0] : undefined;
      const queued = new Promise<void>((resolve, reject) => {
        slot.queue.push({ text, entries, header, resolve, reject });
      });
      slot.opening ??= open(sessionId, slot);
      return queued;
    },

    async load(sessionId, loadOptions?: LoadOptions) {
      assertSessionId(sessionId);
      await settled(sessionId);
      const path = await findPath(sessionId);
      if (path === undefined) return undefined;
      const collector = createEntryCollector(loadOptions?.fromLastBoundary === true);
      // The listing summary comes for free with the parsed entries: kept for a resumed session's writes.
      const summary = createInfoAccumulator(sessionId);
      const outcome = await readEntriesFrom(
        path,
        (entry) => {
          collector.add(entry);
          summary.add(entry);
        },
        (line, message) => warn({ sessionId, path, line, message }),
      );
      if (outcome === undefined) return undefined;
      if (!outcome.tail && !slots.has(sessionId)) {
        const { lastModified: _, ...info } = summary.finish(0);
        loaded.set(sessionId, { offset: outcome.end, info });
      }
      return collector.entries();
    },

    async list(listOptions) {
      const cwd = listOptions?.cwd;
      const dirs = cwd !== undefined ? [projectKey(cwd)] : await listDirs(projectsDir);
      const infos: SessionInfo[] = [];
      for (const slot of slots.values()) recordSummary(slot);
      for (const dir of dirs) {
        const names = (await listFiles(join(projectsDir, dir))).filter(isSessionFile);
        for (const name of names) await settled(name.slice(0, -".jsonl".length));
        for (const info of await summarizeFolder(join(projectsDir, dir), names, warn)) {
          // Different cwds can share a key ("/a-b" and "/a/b"): the header decides.
          if (cwd === undefined || info.cwd === cwd) infos.push(info);
        }
      }
      return infos;
    },

    async delete(sessionId) {
      assertSessionId(sessionId);
      await settled(sessionId);
      release(sessionId, false);
      loaded.delete(sessionId);
      const path = await findPath(sessionId);
      paths.delete(sessionId);
      if (path !== undefined) await unlink(path).catch(ignoreMissing);
    },

    async close() {
      for (const sessionId of [...slots.keys()]) {
        await settled(sessionId);
        release(sessionId);
      }
    },
  };
}

/** A transcript's name: `<session id>.jsonl`, where an id never starts with a dot (the index's files do). */
function isSessionFile(name: string): boolean {
  return name.endsWith(".jsonl") && !name.startsWith(".");
}

async function listDirs(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  } catch (error) {
    ignoreMissing(error);
    return [];
  }
}

async function listFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).filter((d) => d.isFile()).map((d) => d.name);
  } catch (error) {
    ignoreMissing(error);
    return [];
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch (error) {
    ignoreMissing(error);
    return false;
  }
}

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
}

function defaultWarning(warning: SessionWarning): void {
  const where = warning.path !== undefined ? `${warning.path}:${warning.line ?? "?"}: ` : "";
  process.emitWarning(`${where}${warning.message}`, { code: "GOAT_SESSION" });
}
