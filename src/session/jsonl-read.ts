/**
 * Reading a JSONL transcript entry by entry, in fixed-size chunks, so a long session never becomes
 * one giant string in memory. Lines that do not parse (a torn write) are reported and skipped.
 */
import { open } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import type { SessionEntry } from "./types.js";

const CHUNK_BYTES = 256 * 1024;

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

/**
 * Streams the entries of a file to `onEntry` in order. `onBadLine` gets each skipped line's 1-based
 * number and reason. Resolves false when the file does not exist.
 */
export async function readEntries(
  path: string,
  onEntry: (entry: SessionEntry) => void,
  onBadLine: (line: number, reason: string) => void,
): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
  const decoder = new StringDecoder("utf8");
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let carry = "";
  let lineNo = 0;
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
      const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      const text = carry + decoder.write(buffer.subarray(0, bytesRead));
      let start = 0;
      for (let nl = text.indexOf("\n", start); nl !== -1; nl = text.indexOf("\n", start)) {
        handleLine(text.slice(start, nl), false);
        start = nl + 1;
      }
      carry = text.slice(start);
    }
    const tail = carry + decoder.end();
    // A last line without its newline was cut off by a crash unless it happens to parse whole.
    if (tail !== "") handleLine(tail, true);
  } finally {
    await handle.close();
  }
  return true;
}
