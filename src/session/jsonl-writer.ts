/**
 * Appending to one session's JSONL file, fast enough that persisting costs next to nothing per turn.
 *
 * Why synchronous writes: the loop waits for the assistant message that carries tool calls to be
 * written before any tool starts. An asynchronous write goes through libuv's thread pool, so that wait
 * is a round trip between threads (and, on a loaded machine, a wait for a free core) on every turn. A
 * `writeSync` of a few kilobytes to an open file only copies into the page cache: about 10 µs, no
 * hand-off. The guarantee is the same as before (the bytes are in the OS, so a process crash loses
 * nothing); OS-crash safety is `fsync`, opt-in because it costs milliseconds per write.
 *
 * Open files are shared out process-wide: at most MAX_OPEN_FILES stay open (least recently written
 * closed first), so 10,000 live sessions do not need 10,000 file descriptors. A file closed that way
 * ended on a whole line, so reopening it needs no check; a file whose write failed, or that another
 * process may have torn, is checked for a missing final newline when opened.
 */
import { closeSync, fdatasync, fstatSync, openSync, readSync, writeSync } from "node:fs";
import { PRIVATE_FILE_MODE } from "./private-files.js";

/** How many session files stay open at once in this process. */
export const MAX_OPEN_FILES = 256;

/** The files open now, least recently written first (a Set keeps insertion order). */
const openWriters = new Set<SessionFileWriter>();

/** Appends whole lines to one session file. */
export class SessionFileWriter {
  private fd: number | undefined;
  /** True when the file must be checked for a torn last line before the next write. */
  private unchecked = true;
  /** True when the file ends without a newline: the next write starts a fresh line. */
  private needsNewline = false;
  /** Bytes this writer has added to the file (a line break it inserted included). */
  private written = 0;

  constructor(
    readonly path: string,
    private readonly fsync: boolean,
  ) {}

  /**
   * Writes `text` (whole lines) at the end of the file. Resolves at once without `fsync`, or when
   * the data has reached the disk with it. Throws synchronously when the write fails.
   */
  append(text: string): Promise<void> | undefined {
    const fd = this.open();
    try {
      this.written += writeWhole(fd, this.needsNewline ? `\n${text}` : text);
      this.needsNewline = false;
    } catch (error) {
      // A failed write may have left half a line: reopen and check the tail next time.
      this.close();
      this.unchecked = true;
      throw error;
    }
    if (!this.fsync) return undefined;
    return new Promise((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())));
  }

  /** Bytes this writer has added to the file so far; a failed write may have added some uncounted. */
  get bytesWritten(): number {
    return this.written;
  }

  /** Closes the file; the next append reopens it. */
  close(): void {
    if (this.fd === undefined) return;
    openWriters.delete(this);
    const fd = this.fd;
    this.fd = undefined;
    try {
      closeSync(fd);
    } catch {
      // Already closed or invalid: nothing left to release.
    }
  }

  private open(): number {
    if (this.fd !== undefined) {
      // Most recently used goes last.
      openWriters.delete(this);
      openWriters.add(this);
      return this.fd;
    }
    while (openWriters.size >= MAX_OPEN_FILES) openWriters.values().next().value?.close();
    // A new transcript is the user's only; an existing one keeps the mode it has.
    const fd = openSync(this.path, "a+", PRIVATE_FILE_MODE);
    if (this.unchecked) {
      this.needsNewline = endsWithoutNewline(fd);
      this.unchecked = false;
    }
    this.fd = fd;
    openWriters.add(this);
    return fd;
  }
}

function endsWithoutNewline(fd: number): boolean {
  const { size } = fstatSync(fd);
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] !== 0x0a;
}

/**
 * Writes all of `text` and returns its length in bytes. The string goes to the kernel as it is (no
 * Buffer of our own to allocate and copy on every turn); a short write (rare on regular files) is
 * continued from the bytes not yet written, not dropped.
 */
function writeWhole(fd: number, text: string): number {
  const wrote = writeSync(fd, text);
  const length = Buffer.byteLength(text, "utf8");
  if (wrote === length) return length;
  const bytes = Buffer.from(text, "utf8");
  let offset = wrote;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
  return bytes.length;
}
