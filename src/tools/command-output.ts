/**
 * Keeping a command's output within what the model should see: up to the limit it is kept whole;
 * past it only the head and a rolling tail stay in memory and the WHOLE output goes to a file, so a
 * command that floods hundreds of megabytes costs a few kilobytes of memory.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { StringDecoder } from "node:string_decoder";
import type { ToolSessionState } from "./types.js";

/** Characters of output the model sees inline (Claude Code's default `bashOutputMaxChars`). */
export const MAX_OUTPUT_CHARS = 30_000;

/**
 * Bytes of output a command may produce before it is stopped: 64 MiB. Far above any build or test
 * log a model reads (it sees 30,000 characters and pages through the spill file with Read and Grep),
 * yet small enough that a flood (`yes`, `seq inf`, `cat /dev/zero`, which fill a disk at gigabytes a
 * second) costs at most this much disk per call. A command that really makes more output can write it
 * to a file itself. `GOAT_BASH_MAX_OUTPUT_BYTES` changes it.
 */
export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** The output cap: `GOAT_BASH_MAX_OUTPUT_BYTES` when it is a positive integer, else the default. */
export function maxOutputBytesFrom(env: Record<string, string | undefined>): number {
  const value = Number(env.GOAT_BASH_MAX_OUTPUT_BYTES);
  return Number.isSafeInteger(value) && value > 0 ? value : DEFAULT_MAX_OUTPUT_BYTES;
}

/** "64 MiB", or the exact byte count when it is not a whole number of MiB. */
export function describeByteCap(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB` : `${bytes.toLocaleString("en-US")} bytes`;
}

/** What a collector ends with. */
export interface CollectedOutput {
  /** The output, or its head and tail around a marker saying how much was cut. */
  text: string;
  truncated: boolean;
  totalChars: number;
  totalBytes: number;
  /** File holding the whole output (raw bytes), when it was truncated and the file could be written. */
  outputFile?: string;
  /** Why the whole output could not be saved, if it could not. */
  spillError?: string;
  /** Set when the output passed the byte cap: the cap. Only bytes up to it were saved. */
  capBytes?: number;
}

/** Accumulates raw output chunks; `push` returns the chunk decoded as UTF-8 (bad bytes become U+FFFD). */
export interface OutputCollector {
  push(chunk: Buffer): string;
  /** True once more than the byte cap was pushed: the producer must be stopped. */
  readonly overCap: boolean;
  finish(): CollectedOutput;
}

/**
 * Creates a collector. `spillPath` is called once, when the output first passes `limit`; the file it
 * names receives every byte from the start, up to `maxBytes`. Memory stays bounded whatever arrives:
 * the head, a rolling tail, and before the spill at most `limit` characters.
 */
export function createOutputCollector(
  spillPath: () => string,
  limit = MAX_OUTPUT_CHARS,
  maxBytes = DEFAULT_MAX_OUTPUT_BYTES,
): OutputCollector {
  const headChars = Math.floor(limit / 2);
  const tailChars = limit - headChars;
  const decoder = new StringDecoder("utf8");
  let whole = "";
  let raw: Buffer[] = [];
  let spilled = false;
  let fd: number | undefined;
  let file: string | undefined;
  let spillError: string | undefined;
  let head = "";
  let tail = "";
  let totalChars = 0;
  let totalBytes = 0;

  const appendTail = (s: string) => {
    tail += s;
    // Trim only when twice over, so trimming costs amortised O(1) per character.
    if (tail.length > tailChars * 2) tail = sliceFrom(tail, tail.length - tailChars);
  };

  const spill = () => {
    spilled = true;
    head = sliceTo(whole, headChars);
    appendTail(whole.slice(head.length));
    whole = "";
    try {
      file = spillPath();
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      fd = fs.openSync(file, "w", 0o600); // the user's only: it holds whatever the command printed
      for (const chunk of raw) writeAll(fd, chunk);
    } catch (err) {
      spillError = err instanceof Error ? err.message : String(err);
      file = undefined;
      closeQuietly(fd);
      fd = undefined;
    }
    raw = [];
  };

  const writeOut = (chunk: Buffer) => {
    if (fd === undefined) return;
    try {
      writeAll(fd, chunk);
    } catch (err) {
      spillError = `saving stopped after an error: ${err instanceof Error ? err.message : String(err)}`;
      closeQuietly(fd);
      fd = undefined;
    }
  };

  return {
    get overCap() {
      return totalBytes > maxBytes;
    },
    push(chunk) {
      const savedBefore = Math.min(totalBytes, maxBytes);
      totalBytes += chunk.length;
      const s = decoder.write(chunk);
      totalChars += s.length;
      if (spilled) {
        // Written synchronously: the pipe is not read again until the bytes are on disk, so a fast
        // producer is slowed to the disk's pace instead of piling up in memory. Nothing past the cap.
        const room = maxBytes - savedBefore;
        if (room > 0) writeOut(room < chunk.length ? chunk.subarray(0, room) : chunk);
        appendTail(s);
      } else {
        raw.push(chunk);
        whole += s;
        if (whole.length > limit) spill();
      }
      return s;
    },
    finish() {
      const rest = decoder.end();
      totalChars += rest.length;
      closeQuietly(fd);
      fd = undefined;
      const capBytes = totalBytes > maxBytes ? maxBytes : undefined;
      if (!spilled) {
        whole += rest;
        return { text: whole, truncated: false, totalChars, totalBytes, capBytes };
      }
      appendTail(rest);
      const kept = sliceFrom(tail, Math.max(0, tail.length - tailChars));
      const text = joinHeadTail(head, kept, totalChars - head.length - kept.length);
      return { text, truncated: true, totalChars, totalBytes, outputFile: file, spillError, capBytes };
    },
  };
}

/**
 * Cuts `text` to head and tail when it is over `limit`, saving the whole text to the file `spillPath`
 * names. For output that is already in memory (a background shell's buffer).
 */
export function limitText(text: string, spillPath: () => string, limit = MAX_OUTPUT_CHARS): CollectedOutput {
  const collector = createOutputCollector(spillPath, limit);
  collector.push(Buffer.from(text, "utf8"));
  return collector.finish();
}

/** The line telling the model where the whole output is, or why it could not be saved. */
export function describeSpill(output: CollectedOutput): string {
  if (output.capBytes !== undefined) {
    const cap = describeByteCap(output.capBytes);
    const where =
      output.outputFile && !output.spillError
        ? ` Its first ${cap} are saved to ${output.outputFile} (read it with Read using offset/limit, or grep it).`
        : "";
    return `Output exceeded ${cap}; the command was stopped, with every process it started.${where}`;
  }
  if (!output.truncated) return "";
  const size = `${output.totalChars.toLocaleString("en-US")} characters, ${output.totalBytes.toLocaleString("en-US")} bytes`;
  if (output.outputFile && !output.spillError) {
    return `Output was too long (${size}); the full output is saved to ${output.outputFile} (read it with Read using offset/limit, or grep it).`;
  }
  if (output.outputFile) {
    return `Output was too long (${size}); it was partly saved to ${output.outputFile} (${output.spillError}).`;
  }
  return `Output was too long (${size}) and could not be saved to a file: ${output.spillError}.`;
}

/** Each session's temp directory, once made (keyed by the session's tool state, so never shared). */
const tempDirs = new WeakMap<ToolSessionState, string>();

/**
 * The session's temp directory, os.tmpdir()/goat-<sessionId>-XXXXXX, made on first use by `mkdtemp`:
 * a fresh name that no other user can have created first, mode 0700. Making it registers a session
 * cleanup that removes it.
 */
export function sessionTempDir(state: ToolSessionState, sessionId: string): string {
  const known = tempDirs.get(state);
  if (known !== undefined) return known;
  const prefix = `goat-${sessionId.replace(/[^A-Za-z0-9._-]/g, "_") || "session"}-`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.set(state, dir);
  state.cleanups.push(() => {
    tempDirs.delete(state);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

function joinHeadTail(head: string, tail: string, omitted: number): string {
  const cut = omitted.toLocaleString("en-US");
  return `${head}\n\n... [${cut} characters truncated] ...\n\n${tail}`;
}

/** `s.slice(0, end)` that never ends between the two halves of a surrogate pair. */
function sliceTo(s: string, end: number): string {
  return isLowSurrogate(s.charCodeAt(end)) ? s.slice(0, end - 1) : s.slice(0, end);
}

/** `s.slice(start)` that never starts on the second half of a surrogate pair. */
function sliceFrom(s: string, start: number): string {
  return isLowSurrogate(s.charCodeAt(start)) ? s.slice(start + 1) : s.slice(start);
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function writeAll(fd: number, chunk: Buffer): void {
  let offset = 0;
  while (offset < chunk.length) offset += fs.writeSync(fd, chunk, offset);
}

function closeQuietly(fd: number | undefined): void {
  if (fd === undefined) return;
  try {
    fs.closeSync(fd);
  } catch {
    // Already closed or never fully opened: nothing left to release.
  }
}
