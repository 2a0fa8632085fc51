/**
 * Read-before-write bookkeeping. Read records each file's mtime and size in the session's
 * `readFiles` (keyed by real path); Write and Edit refuse to overwrite a file the model has not read,
 * or one that changed on disk since, because the model would be editing a version it never saw.
 */
import type fs from "node:fs";
import { stat } from "node:fs/promises";
import type { FileSnapshot, ToolSessionState } from "./types.js";

/** Records what the model has now seen of a file: its mtime and size at the time of the read or write. */
export function recordFileSnapshot(state: ToolSessionState, realPath: string, stats: fs.Stats): void {
  state.readFiles.set(realPath, snapshotOf(stats));
}

/** The snapshot of a file's stats as `readFiles` stores it. */
function snapshotOf(stats: fs.Stats): FileSnapshot {
  return { mtimeMs: stats.mtimeMs, size: stats.size };
}

/**
 * Checks that an existing file may be overwritten: it must have been read in this session and be
 * unchanged since (same mtime and size). Returns the error text for the model, or `undefined` when
 * the write may go ahead. `current` is the file's stats now, or `undefined` when it does not exist
 * (a new file needs no prior read).
 */
export function checkFreshForWrite(
  state: ToolSessionState,
  realPath: string,
  current: fs.Stats | undefined,
): string | undefined {
  if (current === undefined) return undefined;
  const seen = state.readFiles.get(realPath);
  if (seen === undefined) {
    return `File has not been read yet. Read it first before writing to it: ${realPath}`;
  }
  if (seen.mtimeMs !== current.mtimeMs || seen.size !== current.size) {
    const change =
      seen.size !== current.size ? `size ${seen.size} → ${current.size} bytes` : "modification time changed";
    return (
      `File has been modified since read, either by the user or by a linter: ${realPath} (${change}). ` +
      "Read it again before attempting to write it."
    );
  }
  return undefined;
}

/**
 * Marks a file as read on the host's word (Claude Code's `seed_read_state`): the host saw it with
 * modification time `mtime` (whole milliseconds), in a Read since removed from the context. Only a
 * file still unchanged since then is marked; otherwise Write and Edit keep asking for a fresh Read.
 */
export async function seedFileSnapshot(
  state: ToolSessionState,
  realPath: string,
  mtime: number,
): Promise<{ seeded: boolean; reason?: string }> {
  let stats: fs.Stats;
  try {
    stats = await stat(realPath);
  } catch (error) {
    return { seeded: false, reason: `cannot stat ${realPath}: ${(error as NodeJS.ErrnoException).code}` };
  }
  if (!stats.isFile()) return { seeded: false, reason: `${realPath} is not a regular file` };
  if (Math.floor(stats.mtimeMs) !== Math.floor(mtime)) {
    return { seeded: false, reason: `${realPath} changed since it was read (its modification time differs)` };
  }
  recordFileSnapshot(state, realPath, stats);
  return { seeded: true };
}
