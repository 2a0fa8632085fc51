/**
 * Reading a JSONL transcript entry by entry, in fixed-size chunks, so a long session never becomes
 * one giant string in memory. Lines that do not parse (a torn write) are reported and skipped.
 */
import { open } from "node:fs/promises";
import type { SessionEntry } from "./types.js";

const CHUNK_BYTES = 4 * 1024 * 1024;

/** Parses one line into an entry, or returns why it is not one. */
export function parseEntryLine(line: string): SessionEntry | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return `not valid JSON (${(error as Error).message})`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "not a JSON object";
  const entry = value as Record<string, unknown>;
  if (typeof entry.uuid !== "string" || typeof entry.type !== "string") return "missing uuid or type";
  return value as SessionEntry;
}

/** Where `readEntriesFrom` starts, and what it found. */
export interface ReadRange {
  /** Byte offset to start at (the start of a line); default 0. */
  from?: number;
  /** Skip bytes after the last newline instead of reading them as a (possibly torn) last line. */
  wholeLinesOnly?: boolean;
}

/** What `readEntriesFrom` read. */
export interface ReadOutcome {
  /** Byte offset just past the last newline read: where an incremental reader continues. */
  end: number;
  /** True when the file ended with bytes after the last newline (a torn or unfinished line). */
  tail: boolean;
}

/**
 * Streams the entries of a file to `onEntry` in order, saying where reading ended; undefined when the
 * file does not exist. `onBadLine` gets each skipped line's 1-based number (counted from `range.from`)
 * and reason.
 */
export async function readEntriesFrom(
  path: string,
  onEntry: (entry: SessionEntry) => void,
  onBadLine: (line: number, reason: string) => void,
  range: ReadRange = {},
): Promise<ReadOutcome | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  // A small file needs no 4 MB buffer: one byte more than its size, so the second read finds the end.
  const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, (await handle.stat()).size + 1));
  const chunkBytes = chunk.length;
  // Bytes of a line that started in an earlier chunk. Each chunk's whole lines are decoded at once (a
  // line break byte is never part of a UTF-8 character, so cutting there splits none) and lines are
  // slices of that text: one decode per chunk instead of one per line, and no chunk outlives its lines.
  let carry: Buffer = Buffer.alloc(0);
  let lineNo = 0;
  let position = range.from ?? 0;
  let end = position;
  const handleLine = (line: string, isTail: boolean): void => {
    lineNo++;
    if (line.trim() === "") return;
    const parsed = parseEntryLine(line);
    if (typeof parsed !== "string") {
      onEntry(parsed);
      return;
    }
    onBadLine(
      lineNo,
      isTail
        ? `torn last line skipped (the process probably stopped mid-write): ${parsed}`
        : `unreadable line skipped: ${parsed}`,
    );
  };
  try {
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunkBytes, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const data =
        carry.length > 0
          ? Buffer.concat([carry, chunk.subarray(0, bytesRead)])
          : chunk.subarray(0, bytesRead);
      const wholeLines = data.lastIndexOf(0x0a) + 1;
      const text = data.toString("utf8", 0, wholeLines);
      for (let start = 0; start < text.length; ) {
        const nl = text.indexOf("\n", start);
        handleLine(text.slice(start, nl), false);
        start = nl + 1;
      }
      // Copied because `chunk` is overwritten by the next read.
      carry = Buffer.from(data.subarray(wholeLines));
      end = position - carry.length;
    }
    // A last line without its newline was cut off by a crash unless it happens to parse whole.
    if (carry.length > 0 && range.wholeLinesOnly !== true) handleLine(carry.toString("utf8"), true);
  } finally {
    await handle.close();
  }
  return { end, tail: carry.length > 0 };
}
