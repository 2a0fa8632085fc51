/**
 * Reads a range of lines from an open file with bounded memory: one reused chunk buffer, lines before
 * the range are only counted (newline bytes, no decoding), and a line longer than the display cap
 * keeps only its first bytes. Reading line 10,000,000 of a 1 GB file holds a few KB, not the file.
 */
import type { FileHandle } from "node:fs/promises";

const CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

/** What to read. */
export interface LineRangeRequest {
  /** 1-based first line. */
  startLine: number;
  maxLines: number;
  /** Lines longer than this many characters are cut. */
  maxLineChars: number;
  /** Stop once the lines read add up to this many characters (the model's context is finite). */
  maxTotalChars: number;
  /**
   * Also count the lines after the range (newline bytes only, no decoding), so `totalLines` is known
   * even when the read stops early: Claude Code's Read result always reports it.
   */
  countToEnd?: boolean;
  signal?: AbortSignal;
}

/** The lines read, and what is known about the rest of the file. */
export interface LineRange {
  /** Decoded lines without their line endings (invalid UTF-8 becomes U+FFFD). */
  lines: string[];
  /** For each line, whether it was cut at `maxLineChars`. */
  cut: boolean[];
  /** True when the file has more lines after the last one returned. */
  hasMore: boolean;
  /** True when reading stopped at `maxTotalChars` rather than `maxLines` or the end. */
  stoppedAtCharCap: boolean;
  /** Number of lines in the file, when the read reached the end of it. */
  totalLines?: number;
}

/** Reads lines `startLine…` of an open file (see `LineRangeRequest`). */
export async function readLineRange(handle: FileHandle, req: LineRangeRequest): Promise<LineRange> {
  // Enough bytes for maxLineChars characters even if every one takes 4 bytes, plus a partial one.
  const lineByteCap = req.maxLineChars * 4 + 8;
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  const out: LineRange = { lines: [], cut: [], hasMore: false, stoppedAtCharCap: false };

  let lineNo = 1;
  let position = 0;
  let parts: Buffer[] = [];
  let partBytes = 0;
  let overflow = false;
  let lineHasBytes = false;
  let totalChars = 0;

  const finishLine = (): boolean => {
    let text = decoder.decode(Buffer.concat(parts, partBytes));
    if (lineNo === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (!overflow && text.endsWith("\r")) text = text.slice(0, -1);
    const isCut = overflow || text.length > req.maxLineChars;
    if (isCut) text = text.slice(0, req.maxLineChars);
    out.lines.push(text);
    out.cut.push(isCut);
    totalChars += text.length + 8;
    parts = [];
    partBytes = 0;
    overflow = false;
    lineHasBytes = false;
    return out.lines.length >= req.maxLines || totalChars >= req.maxTotalChars;
  };

  for (;;) {
    req.signal?.throwIfAborted();
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const view = buffer.subarray(0, bytesRead);
    let i = 0;
    while (i < bytesRead) {
      const nl = view.indexOf(NEWLINE, i);
      const end = nl === -1 ? bytesRead : nl;
      if (lineNo >= req.startLine && end > i) {
        lineHasBytes = true;
        const room = lineByteCap - partBytes;
        if (room > 0) {
          const take = Math.min(room, end - i);
          parts.push(Buffer.from(view.subarray(i, i + take)));
          partBytes += take;
        }
        if (end - i > room) overflow = true;
      } else if (end > i) {
        lineHasBytes = true;
      }
      if (end === bytesRead) break;
      i = end + 1;
      if (lineNo >= req.startLine && finishLine()) {
        out.stoppedAtCharCap = out.lines.length < req.maxLines;
        out.hasMore = i < bytesRead || (await hasBytesAt(handle, position));
        if (!out.hasMore) out.totalLines = lineNo;
        else if (req.countToEnd) {
          out.totalLines = await countRemainingLines(handle, buffer, view, i, position, lineNo, req.signal);
        }
        return out;
      }
      lineHasBytes = false;
      lineNo++;
    }
  }
  // End of file: a last line without a trailing newline still counts.
  if (lineHasBytes) {
    if (lineNo >= req.startLine) finishLine();
    out.totalLines = lineNo;
  } else {
    out.totalLines = lineNo - 1;
  }
  return out;
}

/**
 * The file's line count, given that lines 1…`linesSoFar` ended before byte `from` of the chunk `view`
 * (which ends at file offset `position`): the newlines after it are counted, plus a last line
 * without one.
 */
async function countRemainingLines(
  handle: FileHandle,
  buffer: Buffer,
  view: Buffer,
  from: number,
  position: number,
  linesSoFar: number,
  signal: AbortSignal | undefined,
): Promise<number> {
  let count = linesSoFar;
  let lastByte = view[from - 1];
  let chunk = view.subarray(from);
  let offset = position;
  for (;;) {
    for (let nl = chunk.indexOf(NEWLINE); nl !== -1; nl = chunk.indexOf(NEWLINE, nl + 1)) count++;
    if (chunk.length > 0) lastByte = chunk[chunk.length - 1];
    signal?.throwIfAborted();
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, offset);
    if (bytesRead === 0) break;
    offset += bytesRead;
    chunk = buffer.subarray(0, bytesRead);
  }
  return lastByte === NEWLINE ? count : count + 1;
}

async function hasBytesAt(handle: FileHandle, position: number): Promise<boolean> {
  const probe = Buffer.alloc(1);
  const { bytesRead } = await handle.read(probe, 0, 1, position);
  return bytesRead > 0;
}
