/**
 * Summarizing a transcript for a listing from a byte offset on, parsing only the lines that carry what
 * a listing shows.
 *
 * A listing needs the header (cwd, model), the first prompt, the results (cost), model changes and a
 * count of the messages that are not compaction copies. Most lines are messages, and most of a
 * message line is its content, which the count does not need: a line written by this store starts
 * with `{"type":"user",` or `{"type":"assistant",` and ends with the session id, so it is counted from
 * its bytes alone unless it may be a copy (it holds the `"copy_of":"` key) or may hold the first
 * prompt. Every other line, and any line that does not have exactly that shape (another writer's key
 * order, a torn line), is parsed in full as before, so the summary is the same as parsing everything.
 * Profiled on 10,000 sessions, JSON.parse and the garbage it left were half of a cold listing.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { parseEntryLine } from "./jsonl-read.js";
import { createInfoAccumulator, type InfoAccumulator } from "./session-info.js";
import type { SessionInfo, SessionWarning } from "./types.js";

/** A summary of a transcript's first `offset` bytes (whole lines). */
export interface ScannedSummary {
  offset: number;
  info: Omit<SessionInfo, "lastModified">;
}

/** The read buffer, shared: scans run synchronously, one at a time. */
const CHUNK = Buffer.allocUnsafe(256 * 1024);
const TYPE_KEY = Buffer.from('{"type":"');
const COPY_KEY = Buffer.from('"copy_of":"');
const NEWLINE = 0x0a;
/** Entry types told apart by their bytes (with the closing quote, so "user" is not "username"). */
const USER = Buffer.from('user"');
const ASSISTANT = Buffer.from('assistant"');
const IGNORED = [Buffer.from('compact_boundary"'), Buffer.from('custom"')];

/**
 * Reads `path` from where `from` stopped (or from the start) up to `size` (its size when listed) and
 * extends its summary; whole lines only, so a line still being written is left for the next scan.
 * Undefined when the file is gone.
 */
export function scanTranscript(
  path: string,
  sessionId: string,
  size: number,
  from: ScannedSummary | undefined,
  warn: (warning: SessionWarning) => void,
): ScannedSummary | undefined {
  const acc = createInfoAccumulator(sessionId, from?.info);
  const idTail = Buffer.from(`,"sessionId":${JSON.stringify(sessionId)}}`);
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined; // deleted meanwhile
  }
  let position = from?.offset ?? 0;
  let end = position;
  let lineNo = 0;
  let carry = Buffer.alloc(0);
  try {
    // Up to the listed size: what was appended since is for the next listing (and no read is spent
    // finding the end).
    while (position < size) {
      const bytesRead = readSync(fd, CHUNK, 0, Math.min(CHUNK.length, size - position), position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const data =
        carry.length > 0
          ? Buffer.concat([carry, CHUNK.subarray(0, bytesRead)])
          : CHUNK.subarray(0, bytesRead);
      // Where the copy key occurs in this chunk (rarely at all): searched once per chunk, not per line.
      let copyAt = data.indexOf(COPY_KEY);
      let start = 0;
      for (let nl = data.indexOf(NEWLINE, start); nl !== -1; nl = data.indexOf(NEWLINE, start)) {
        lineNo++;
        while (copyAt !== -1 && copyAt < start) copyAt = data.indexOf(COPY_KEY, copyAt + 1);
        const mayBeCopy = copyAt !== -1 && copyAt < nl; // a copy, or a key inside the content
        if (mayBeCopy || !countedFromBytes(data, start, nl, idTail, acc)) {
          const line = data.toString("utf8", start, nl);
          if (line.trim() !== "") {
            const parsed = parseEntryLine(line);
            if (typeof parsed === "string")
              warn({ sessionId, path, line: lineNo, message: `unreadable line skipped: ${parsed}` });
            else acc.add(parsed);
          }
        }
        start = nl + 1;
      }
      // Copied because CHUNK is overwritten by the next read.
      carry = Buffer.from(data.subarray(start));
      end = position - carry.length;
    }
  } finally {
    closeSync(fd);
  }
  const { lastModified: _, ...info } = acc.finish(0);
  return { offset: end, info };
}

/**
 * Handles the line `data[start, end)`, which holds no copy key, without parsing it when its bytes say
 * enough: a message once the first prompt is known (counted), or a compaction boundary or custom
 * entry (which a summary ignores). False when the line must be parsed.
 */
function countedFromBytes(
  data: Buffer,
  start: number,
  end: number,
  idTail: Buffer,
  acc: InfoAccumulator,
): boolean {
  const typeStart = start + TYPE_KEY.length;
  if (end - typeStart < idTail.length + ASSISTANT.length) return false;
  if (!bytesAt(data, start, TYPE_KEY) || !bytesAt(data, end - idTail.length, idTail)) return false;
  if (bytesAt(data, typeStart, ASSISTANT) || (acc.hasPrompt && bytesAt(data, typeStart, USER))) {
    acc.countMessage();
    return true;
  }
  return IGNORED.some((type) => bytesAt(data, typeStart, type));
}

/** True when `data` holds `pattern` at `at`. */
function bytesAt(data: Buffer, at: number, pattern: Buffer): boolean {
  for (let i = 0; i < pattern.length; i++) if (data[at + i] !== pattern[i]) return false;
  return true;
}
