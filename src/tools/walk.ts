/**
 * The directory walker Glob and the built-in Grep share: lists files under a root, honouring
 * `.gitignore` files (root, nested and the repository's above the root), skipping version-control
 * directories, following symlinks without ever looping, and skipping directories it cannot read.
 * It reads directories a few at a time (bounded concurrency) and never stats plain files: callers
 * stat only the files they keep.
 */
import type { Dirent } from "node:fs";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { type IgnoreStack, isIgnored, loadAncestorIgnores, pushFrame, readIgnoreFile } from "./gitignore.js";

/** Version-control directories never listed, like Claude Code's Grep (`--glob !.git` and friends). */
export const VCS_DIRS: ReadonlySet<string> = new Set([".git", ".svn", ".hg", ".bzr"]);

/** How to walk. */
export interface WalkOptions {
  signal?: AbortSignal;
  /** Deepest level listed: 1 lists only the root's own entries. Unlimited when absent. */
  maxDepth?: number;
  /** Honour `.gitignore` files (default true). */
  gitignore?: boolean;
  /**
   * Consulted before `.gitignore` for each entry (path relative to the root, "/"-separated): `true`
   * keeps it even if ignored, `false` drops it (a dropped directory is not entered), `undefined` lets
   * `.gitignore` decide. Mirrors ripgrep, where `--glob` overrides ignore files.
   */
  filter?: (rel: string, isDir: boolean) => boolean | undefined;
  /** Directories read at the same time (default 16). */
  concurrency?: number;
}

/** What the walk skipped, for callers that want to mention it. */
export interface WalkStats {
  unreadableDirs: number;
}

/** Called for each file found: absolute path (through any symlinked directory) and root-relative path. */
export type OnFile = (abs: string, rel: string) => void;

interface DirJob {
  abs: string;
  rel: string;
  depth: number;
  stack: IgnoreStack;
}

/**
 * Walks `root` (an absolute directory path) and calls `onFile` for every file kept. Order is not
 * defined: callers sort. Rejects with the abort reason if `signal` aborts.
 */
export async function walkFiles(root: string, options: WalkOptions, onFile: OnFile): Promise<WalkStats> {
  const { signal, maxDepth = Number.POSITIVE_INFINITY, filter } = options;
  const useIgnore = options.gitignore ?? true;
  const concurrency = Math.max(1, options.concurrency ?? 16);
  const stats: WalkStats = { unreadableDirs: 0 };
  const rootReal = await fsp.realpath(root);
  // Real paths of symlinked directories already entered: each is entered once, so loops end.
  const visited = new Set<string>([rootReal]);
  const baseStack = useIgnore ? await loadAncestorIgnores(root) : [];

  const followLink = async (abs: string): Promise<{ isDir: boolean; isFile: boolean } | undefined> => {
    try {
      const st = await fsp.stat(abs);
      if (!st.isDirectory()) return { isDir: false, isFile: st.isFile() };
      const real = await fsp.realpath(abs);
      // A target inside the root is walked at its own path; one above the root would re-walk the root.
      const inside = real === rootReal || real.startsWith(rootReal + path.sep);
      const above = rootReal.startsWith(real + path.sep);
      if (inside || above || visited.has(real)) return undefined;
      visited.add(real);
      return { isDir: true, isFile: false };
    } catch {
      return undefined; // broken link
    }
  };

  const readDir = async (job: DirJob, queue: DirJob[]): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await fsp.readdir(job.abs, { withFileTypes: true });
    } catch {
      stats.unreadableDirs++;
      return;
    }
    let stack = job.stack;
    if (useIgnore && entries.some((e) => e.name === ".gitignore")) {
      const rules = await readIgnoreFile(path.join(job.abs, ".gitignore"));
      if (rules) stack = pushFrame(stack, rules, job.rel);
    }
    for (const entry of entries) {
      const name = entry.name;
      const abs = path.join(job.abs, name);
      const rel = job.rel === "" ? name : `${job.rel}/${name}`;
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      if (isDir && VCS_DIRS.has(name)) continue;
      if (entry.isSymbolicLink()) {
        if (VCS_DIRS.has(name)) continue;
        const target = await followLink(abs);
        if (!target) continue;
        ({ isDir, isFile } = target);
      }
      if (!isDir && !isFile) continue; // sockets, fifos, devices
      const decision = filter?.(rel, isDir);
      if (decision === false) continue;
      if (decision === undefined && useIgnore && isIgnored(stack, rel, isDir)) continue;
      if (isDir) {
        if (job.depth + 1 < maxDepth) queue.push({ abs, rel, depth: job.depth + 1, stack });
      } else {
        onFile(abs, rel);
      }
    }
  };

  await runPool([{ abs: root, rel: "", depth: 0, stack: baseStack }], readDir, concurrency, signal);
  return stats;
}

/** Runs `work` over a growing queue with at most `limit` jobs in flight. */
function runPool<T>(
  initial: T[],
  work: (job: T, queue: T[]) => Promise<void>,
  limit: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const queue = [...initial];
    let active = 0;
    let failed = false;
    const pump = (): void => {
      if (failed) return;
      if (signal?.aborted) {
        failed = true;
        reject(signal.reason ?? new Error("aborted"));
        return;
      }
      while (active < limit && queue.length > 0) {
        const job = queue.pop() as T;
        active++;
        work(job, queue).then(
          () => {
            active--;
            pump();
          },
          (err: unknown) => {
            failed = true;
            reject(err);
          },
        );
      }
      if (active === 0 && queue.length === 0) resolve();
    };
    pump();
  });
}

/** Maps `items` through `fn` with at most `limit` calls in flight; results keep the input order. */
export async function mapWithLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      signal?.throwIfAborted();
      const i = next++;
      results[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
