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
  const entries = await tailEntries(path);
  let sinceResult = false;
  let interrupted = false;
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    if (entry.type === "result") {
      if (sinceResult) break;
      // The last run's result: look back over its messages for an interruption before deciding.
      for (let j = i - 1; j >= 0 && entries[j].type !== "result"; j--)
        interrupted ||= mentionsInterruption(entries[j]);
      if (interrupted) return "interrupted";
      return entry.subtype === "success" ? "success" : "error";
    }
    if (entry.type === "user" || entry.type === "assistant") {
      sinceResult = true;
      interrupted ||= mentionsInterruption(entry);
    }
  }
  if (interrupted) return "interrupted";
  return now - lastModified < RUNNING_WITHIN_MS ? "running" : "interrupted";
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

/** The whole lines in the last 64 KB of the file, parsed; torn and foreign lines are skipped. */
async function tailEntries(path: string): Promise<TailEntry[]> {
  const handle = await open(path, "r").catch(() => undefined);
  if (!handle) return [];
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - TAIL_BYTES);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    const lines = buffer.toString("utf8").split("\n");
    if (start > 0) lines.shift(); // the first line may start mid-entry
    const entries: TailEntry[] = [];
    for (const line of lines) {
      if (!line.trim()) continue;
      try {
        const value = JSON.parse(line) as TailEntry;
        if (value && typeof value === "object") entries.push(value);
      } catch {
        // A torn line (a write in progress or a crash): not an entry.
      }
    }
    return entries;
  } finally {
    await handle.close();
  }
}
