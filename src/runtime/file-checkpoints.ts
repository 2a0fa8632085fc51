/**
 * File checkpoints (`enableFileCheckpointing`): before Write, Edit, MultiEdit or NotebookEdit change a
 * file, its content is kept (or the fact that it did not exist), once per file per user message.
 * `rewind(userMessageId)` puts every file those tools changed since that message back as it was when
 * the message arrived, and reports what changed. Changes made by Bash or by other programs are not
 * tracked, as in Claude Code. Backups live in memory for the life of the query.
 */
import { lstat, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { FILE_EDIT_TOOLS } from "../permissions/tool-kinds.js";
import { resolveToolPath } from "../tools/paths.js";

/** What a rewind did or would do (the Claude Agent SDK's `RewindFilesResult`). */
export interface RewindFilesResult {
  canRewind: boolean;
  error?: string;
  /** Files whose content differs from the checkpoint (restored, or that would be with `dryRun`). */
  filesChanged?: string[];
  /** Lines the rewind adds back, and lines it removes. */
  insertions?: number;
  deletions?: number;
  /** Files left alone because something other than a regular file is at their path now. */
  skippedLinks?: number;
}

/** One user message's checkpoint: each tracked file's content before its first change (null: absent). */
interface Checkpoint {
  id: string;
  before: Map<string, Buffer | null>;
  /** Reads of files being kept right now. */
  reading: Map<string, Promise<void>>;
}

/** The checkpoints of one query. */
export interface FileCheckpoints {
  /** Starts the checkpoint of a user message; later changes belong to it. */
  begin(userMessageId: string): void;
  /** Keeps the file a tool call is about to change, if this checkpoint has not kept it yet. */
  beforeToolRuns(toolName: string, input: Record<string, unknown>, cwd: string): Promise<void>;
  rewind(userMessageId: string, options?: { dryRun?: boolean }): Promise<RewindFilesResult>;
}

/** Creates an empty set of checkpoints. */
export function createFileCheckpoints(): FileCheckpoints {
  const checkpoints: Checkpoint[] = [];

  return {
    begin(id) {
      checkpoints.push({ id, before: new Map(), reading: new Map() });
    },
    async beforeToolRuns(toolName, input, cwd) {
      const field = FILE_EDIT_TOOLS[toolName];
      const current = checkpoints.at(-1);
      if (!field || !current || typeof input[field] !== "string") return;
      const path = resolveToolPath(input[field] as string, cwd);
      if (current.before.has(path)) return;
      // A second call on the same file waits for the first one's read: only the first state is kept.
      let reading = current.reading.get(path);
      if (!reading) {
        reading = contentOf(path).then((content) => {
          // A link or folder at the path is not a file the tools can change: nothing to keep.
          if (content !== "other") current.before.set(path, content);
        });
        current.reading.set(path, reading);
      }
      await reading;
    },
    async rewind(id, options = {}) {
      const index = checkpoints.findIndex((c) => c.id === id);
      if (index < 0) {
        const known = checkpoints.map((c) => c.id);
        return {
          canRewind: false,
          error: `No file checkpoint for user message ${id}. Checkpoints exist for: ${known.length > 0 ? known.join(", ") : "none yet"}.`,
        };
      }
      // A file's state at the checkpoint is what was kept the first time it changed from then on.
      const target = new Map<string, Buffer | null>();
      for (const checkpoint of checkpoints.slice(index)) {
        for (const [path, content] of checkpoint.before) if (!target.has(path)) target.set(path, content);
      }
      const result: Required<Omit<RewindFilesResult, "error">> = {
        canRewind: true,
        filesChanged: [],
        insertions: 0,
        deletions: 0,
        skippedLinks: 0,
      };
      for (const [path, wanted] of target) {
        const now = await contentOf(path);
        if (now === "other") {
          result.skippedLinks++;
          continue;
        }
        if (sameContent(now, wanted)) continue;
        result.filesChanged.push(path);
        const [added, removed] = lineChanges(now, wanted);
        result.insertions += added;
        result.deletions += removed;
        if (options.dryRun) continue;
        if (wanted === null) await rm(path, { force: true });
        else {
          await mkdir(dirname(path), { recursive: true });
          await writeFile(path, wanted);
        }
      }
      if (!options.dryRun) {
        // The files are as they were at this message: later checkpoints describe a future that is gone.
        checkpoints.splice(index, checkpoints.length - index, { id, before: target, reading: new Map() });
      }
      return result;
    },
  };
}

/** A regular file's bytes, null when nothing is there, "other" for a link, folder or device. */
async function contentOf(path: string): Promise<Buffer | null | "other"> {
  try {
    const info = await lstat(path);
    if (!info.isFile()) return "other";
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

function sameContent(a: Buffer | null, b: Buffer | null): boolean {
  if (a === null || b === null) return a === b;
  return a.equals(b);
}

/** Lines added and removed going from `from` to `to` (multiset of lines: cheap and order-blind). */
function lineChanges(from: Buffer | null, to: Buffer | null): [number, number] {
  const count = (b: Buffer | null) => {
    const lines = new Map<string, number>();
    if (b === null || b.length === 0) return lines;
    for (const line of b.toString("utf8").split("\n")) lines.set(line, (lines.get(line) ?? 0) + 1);
    return lines;
  };
  const a = count(from);
  const b = count(to);
  let added = 0;
  let removed = 0;
  for (const [line, n] of b) added += Math.max(0, n - (a.get(line) ?? 0));
  for (const [line, n] of a) removed += Math.max(0, n - (b.get(line) ?? 0));
  return [added, removed];
}
