/**
 * How a session's last run ended, for the viewer's session list: read from the end of its
 * transcript (the last 64 KB, never the whole file), so a long list costs one small read per session.
 *
 *   success      the last run's result entry says so
 *   error        the last run ended with an `error_*` result
 *   interrupted  the user interrupted the last run, or it ended without a result long ago (the
 *                process was killed or crashed)
 *   running      no result yet and the transcript was written recently
 */
import { open } from "node:fs/promises";

/** The state of a session's last run. */
export type SessionStatus = "running" | "success" | "error" | "interrupted";

const TAIL_BYTES = 64 * 1024;
/**
 * A transcript with no result that was written to this recently is taken for a running session: a
 * run writes an entry for every message and tool result, and one tool call rarely stays silent longer.
 */
const RUNNING_WITHIN_MS = 5 * 60_000;
const INTERRUPTED = "[Request interrupted by user";

/** The status of the session stored at `path`, last modified at `lastModified` (ms). */
export async function sessionStatus(
  path: string,
  lastModified: number,
  now = Date.now(),
): Promise<SessionStatus> {
  // Walking back from the end, a line is parsed only when it may decide the answer: a finished
  // session's last line is its result, and the lines of its last run are only searched for the
  // interruption mark (and for the previous result, where the search stops) as text.
  const lines = await tailLines(path);
  for (let i = lines.length - 1; i >= 0; i--) {
    const entry = parse(lines[i]);
    if (entry?.type === "result") {
      if (lastRunInterrupted(lines, i)) return "interrupted";
      return entry.subtype === "success" ? "success" : "error";
    }
    if (entry?.type === "user" || entry?.type === "assistant") {
      if (lastRunInterrupted(lines, i + 1)) return "interrupted";
      return now - lastModified < RUNNING_WITHIN_MS ? "running" : "interrupted";
    }
  }
  return now - lastModified < RUNNING_WITHIN_MS ? "running" : "interrupted";
}

/** Whether a user entry of the run that ends before line `end` carries the interruption mark. */
function lastRunInterrupted(lines: string[], end: number): boolean {
  for (let j = end - 1; j >= 0; j--) {
    const line = lines[j];
    // Entries are JSON.stringify's output: an entry of type result has this text in its line.
    if (line.includes('"type":"result"') && parse(line)?.type === "result") return false;
    if (line.includes(INTERRUPTED)) {
      const entry = parse(line);
      if (entry && mentionsInterruption(entry)) return true;
    }
  }
  return false;
}

interface TailEntry {
  type?: unknown;
  subtype?: unknown;
  message?: { content?: unknown };
}

function mentionsInterruption(entry: TailEntry): boolean {
  if (entry.type !== "user") return false;
  const content = entry.message?.content;
  if (typeof content === "string") return content.includes(INTERRUPTED);
  if (!Array.isArray(content)) return false;
  return content.some((block: { type?: unknown; text?: unknown; content?: unknown }) => {
    const text =
      block?.type === "text" ? block.text : block?.type === "tool_result" ? block.content : undefined;
    return typeof text === "string"
      ? text.includes(INTERRUPTED)
      : JSON.stringify(text ?? "").includes(INTERRUPTED);
  });
}

/** The whole lines in the last 64 KB of the file (none when it cannot be read). */
async function tailLines(path: string): Promise<string[]> {
  const handle = await open(path, "r").catch(() => undefined);
  if (!handle) return [];
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - TAIL_BYTES);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    const lines = buffer.toString("utf8").split("\n");
    if (start > 0) lines.shift(); // the first line may start mid-entry
    return lines;
  } finally {
    await handle.close();
  }
}

/** One line as an entry; blank, torn (a write in progress, a crash) and foreign lines are none. */
function parse(line: string): TailEntry | undefined {
  if (!line.trim()) return undefined;
  try {
    const value = JSON.parse(line) as TailEntry;
    return value && typeof value === "object" ? value : undefined;
  } catch {
    return undefined;
  }
}
