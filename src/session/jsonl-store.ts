/**
 * The default session store: one JSONL file per session under `<home>/projects/<project key>/`.
 *
 * Crash safety: every append becomes whole `JSON.stringify(entry) + "\n"` lines written by one write
 * call on a file opened for appending, so a crash can only tear the last line, which `load` skips with
 * a warning. Appends of one session go through a queue that keeps call order and merges whatever piled
 * up while a write was in flight into the next write. The header entry carries the cwd, so the store
 * places a new session by its header and finds an existing one by id in any project folder.
 */
import { type FileHandle, mkdir, open, readdir, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { createEntryCollector } from "./collect.js";
import { readEntries } from "./jsonl-read.js";
import { assertSessionId, goatHome, projectKey, sessionFilePath } from "./paths.js";
import { createInfoAccumulator } from "./session-info.js";
import type { LoadOptions, SessionEntry, SessionInfo, SessionStore, SessionWarning } from "./types.js";

/** Options of the JSONL store. */
export interface JsonlSessionStoreOptions {
  /** Root folder; defaults to `$GOAT_HOME` or `~/.goat`. */
  home?: string;
  /** Receives skipped-line warnings; defaults to `process.emitWarning`. */
  onWarning?: (warning: SessionWarning) => void;
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
  header?: SessionEntry;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Per-session write state: the open file and the queue that orders appends. */
interface Writer {
  sessionId: string;
  handle?: FileHandle;
  /** True when the file ends without a newline (a torn tail): the next write starts a fresh line. */
  needsNewline: boolean;
  queue: PendingWrite[];
  draining: boolean;
}

/** Creates the default store. Each store has its own open files and caches (no global state). */
export function createJsonlSessionStore(options: JsonlSessionStoreOptions = {}): JsonlSessionStore {
  const home = options.home ?? goatHome();
  const projectsDir = join(home, "projects");
  const warn = options.onWarning ?? defaultWarning;
  const writers = new Map<string, Writer>();
  const paths = new Map<string, string>();

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

  async function openWriter(writer: Writer, batch: PendingWrite[]): Promise<FileHandle> {
    const header = batch.find((p) => p.header !== undefined)?.header;
    let path = await findPath(writer.sessionId);
    if (path === undefined) {
      if (header?.type !== "header") {
        throw new Error(
          `Session ${writer.sessionId} does not exist yet: its first append must start with a header entry (which carries the cwd).`,
        );
      }
      path = sessionFilePath(home, header.cwd, writer.sessionId);
      await mkdir(join(path, ".."), { recursive: true });
      paths.set(writer.sessionId, path);
    }
    const handle = await open(path, "a+");
    const { size } = await handle.stat();
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      writer.needsNewline = last[0] !== 0x0a;
    }
    return handle;
  }

  async function drain(writer: Writer): Promise<void> {
    writer.draining = true;
    while (writer.queue.length > 0) {
      const batch = writer.queue.splice(0);
      try {
        writer.handle ??= await openWriter(writer, batch);
        const text = (writer.needsNewline ? "\n" : "") + batch.map((p) => p.text).join("");
        await writeWhole(writer.handle, text);
        writer.needsNewline = false;
        for (const p of batch) p.resolve();
      } catch (error) {
        // Reopen next time so the tail is checked again: a failed write may have left half a line.
        await writer.handle?.close().catch(() => undefined);
        writer.handle = undefined;
        for (const p of batch) p.reject(error);
      }
    }
    writer.draining = false;
  }

  function writerOf(sessionId: string): Writer {
    let writer = writers.get(sessionId);
    if (writer === undefined) {
      writer = { sessionId, needsNewline: false, queue: [], draining: false };
      writers.set(sessionId, writer);
    }
    return writer;
  }

  /** Resolves once every append queued before the call is written (or failed). */
  function settled(sessionId: string): Promise<void> {
    const writer = writers.get(sessionId);
    if (writer === undefined || !writer.draining) return Promise.resolve();
    return new Promise((resolve) => {
      writer.queue.push({ text: "", resolve, reject: () => resolve() });
    });
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
          throw new Error(`Entry ${entry.uuid} belongs to session ${entry.sessionId}, not ${sessionId}.`);
        }
      }
      const text = entries.map((e) => `${JSON.stringify(e)}\n`).join("");
      const header = entries[0]?.type === "header" ? entries[0] : undefined;
      const writer = writerOf(sessionId);
      return new Promise<void>((resolve, reject) => {
        writer.queue.push({ text, header, resolve, reject });
        if (!writer.draining) void drain(writer);
      });
    },

    async load(sessionId, loadOptions?: LoadOptions) {
      assertSessionId(sessionId);
      await settled(sessionId);
      const path = await findPath(sessionId);
      if (path === undefined) return undefined;
      const collector = createEntryCollector(loadOptions?.fromLastBoundary === true);
      const found = await readEntries(
        path,
        (entry) => collector.add(entry),
        (line, message) => warn({ sessionId, path, line, message }),
      );
      return found ? collector.entries() : undefined;
    },

    async list(listOptions) {
      const cwd = listOptions?.cwd;
      const dirs = cwd !== undefined ? [projectKey(cwd)] : await listDirs(projectsDir);
      const infos: SessionInfo[] = [];
      for (const dir of dirs) {
        for (const name of await listFiles(join(projectsDir, dir))) {
          if (!name.endsWith(".jsonl")) continue;
          const sessionId = name.slice(0, -".jsonl".length);
          const path = join(projectsDir, dir, name);
          await settled(sessionId);
          const acc = createInfoAccumulator(sessionId);
          const stats = await stat(path).catch(() => undefined);
          if (stats === undefined) continue; // deleted meanwhile
          await readEntries(
            path,
            (entry) => acc.add(entry),
            (line, message) => warn({ sessionId, path, line, message }),
          );
          const info = acc.finish(stats.mtimeMs);
          // Different cwds can share a key ("/a-b" and "/a/b"): the header decides.
          if (cwd === undefined || info.cwd === cwd) infos.push(info);
        }
      }
      return infos;
    },

    async delete(sessionId) {
      assertSessionId(sessionId);
      await settled(sessionId);
      const writer = writers.get(sessionId);
      writers.delete(sessionId);
      await writer?.handle?.close();
      const path = await findPath(sessionId);
      paths.delete(sessionId);
      if (path !== undefined) await unlink(path).catch(ignoreMissing);
    },

    async close() {
      for (const writer of [...writers.values()]) {
        await settled(writer.sessionId);
        writers.delete(writer.sessionId);
        await writer.handle?.close();
      }
    },
  };
}

/** Writes all of `text`; a short write (rare on regular files) is continued, not dropped. */
async function writeWhole(handle: FileHandle, text: string): Promise<void> {
  if (text === "") return;
  const bytes = Buffer.from(text, "utf8");
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, null);
    offset += bytesWritten;
  }
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
