/**
 * The target of a file write, held to the place the permission check judged. The check resolves a
 * path's symbolic links and decides on where the write really lands; the write comes later (after
 * the user approved it, say), and a link changed in between (`ln -sfn /elsewhere dir` in a
 * background shell) would carry a path-based write somewhere nobody checked.
 *
 * So Write, Edit and NotebookEdit resolve the path once, check that real path against the session's
 * write scope (`ToolContext.fileScope`, the permission engine's directories and protected files),
 * then open the real parent directory and confirm that the handle is that directory. Everything after
 * goes through the handle: on Linux as `/proc/self/fd/N/name`, which the kernel resolves to the very
 * directory the handle holds whatever the links on the path say by then; elsewhere through the path,
 * confirming the directory (device and inode) again around the rename. The last component is never
 * followed: a link found there is refused, and a link put there later is replaced by the rename, not
 * written through. Read uses the scope check and `whereItMoved` on the file it opened.
 *
 * The directory is opened, confirmed and closed synchronously: the path was just resolved (its
 * entries are in the kernel's cache) and asking /proc where a descriptor points touches no disk, so
 * each is a few microseconds where a trip through libuv's thread pool costs tens.
 */
import fsSync, { type Stats } from "node:fs";
import path from "node:path";
import { replaceFileIn } from "./atomic-write.js";
import { describeFileError } from "./file-errors.js";
import { resolveToolPath, toAbsolutePath } from "./paths.js";
import type { FileScope, ToolContext } from "./types.js";

/** A directory opened without following a link in its last component. */
const DIRECTORY_FLAGS =
  fsSync.constants.O_RDONLY | fsSync.constants.O_DIRECTORY | fsSync.constants.O_NOFOLLOW;
/** A file opened for reading without following a link. */
export const READ_NO_FOLLOW = fsSync.constants.O_RDONLY | fsSync.constants.O_NOFOLLOW;

/** A write target whose real directory is open and confirmed. Close it when done. */
export interface WriteTarget {
  /** The path as the model gave it, made absolute: what messages show. */
  shown: string;
  /** Where the file really is (its directory's real path and its name): the read-state key. */
  realPath: string;
  /** A path reaching the directory through the open handle (Linux), or the directory's real path. */
  dirVia: string;
  /** The file's name in that directory. */
  name: string;
  /** `dirVia/name`: open, read and replace the file through this. */
  via: string;
  /** The file's stats now (not following a link), or undefined when it does not exist yet. */
  current: Stats | undefined;
  /** What changed when the directory is no longer the one checked, else undefined. */
  recheck(): string | undefined;
  close(): void;
}

/** Why a target could not be opened: the text for the model. */
export interface WriteTargetError {
  error: string;
}

/**
 * Where a write of `filePath` really lands (its links resolved), refused when the session's write
 * scope does not allow that place: the check Write makes before it opens anything, also for tools that
 * write through something else (an editor's buffers, `goat acp`), which should then write `realPath`.
 */
export function checkWriteTarget(
  filePath: string,
  ctx: Pick<ToolContext, "cwd" | "fileScope">,
): { shown: string; realPath: string } | WriteTargetError {
  const shown = toAbsolutePath(filePath, ctx.cwd);
  const realPath = resolveToolPath(filePath, ctx.cwd);
  const scope = ctx.fileScope?.();
  const outOfScope = scope ? scopeRefusal(shown, realPath, scope, "write") : undefined;
  return outOfScope ? { error: refused(shown, outOfScope) } : { shown, realPath };
}

/**
 * Resolves `filePath`, checks it against the session's write scope, and opens its real directory
 * (creating missing directories one by one through their parents' handles with `createDirs`).
 */
export function openWriteTarget(
  filePath: string,
  ctx: Pick<ToolContext, "cwd" | "fileScope">,
  options: { createDirs: boolean },
): WriteTarget | WriteTargetError {
  const checked = checkWriteTarget(filePath, ctx);
  if ("error" in checked) return checked;
  const { shown, realPath } = checked;
  const dir = path.dirname(realPath);
  const name = path.basename(realPath);
  let fd: number;
  try {
    fd = openConfirmedDir(dir, options.createDirs);
  } catch (err) {
    if (err instanceof DirectoryMovedError) return { error: refused(shown, err.message) };
    return { error: describeFileError(err, shown, ctx.cwd) };
  }
  const close = () => fsSync.closeSync(fd);
  const dirVia = throughDescriptor(fd, dir);
  const via = path.join(dirVia, name);
  let current: Stats | undefined;
  try {
    current = fsSync.lstatSync(via, { throwIfNoEntry: false });
  } catch (err) {
    close();
    return { error: describeFileError(err, shown, ctx.cwd) };
  }
  if (current?.isSymbolicLink()) {
    close();
    return {
      error: refused(
        shown,
        `${realPath} is a symbolic link that could not be followed to a file (a loop, or a link changed after the permission check)`,
      ),
    };
  }
  const recheck = () => {
    try {
      return whereItMoved(fd, dir);
    } catch (err) {
      return String(err);
    }
  };
  return { shown, realPath, dirVia, name, via, current, recheck, close };
}

/**
 * Replaces the target's file with `data` through the open directory, confirming just before the
 * rename that the directory is still the one checked (else nothing is written) and again after it.
 * Throws an Error whose message says what changed.
 */
export async function replaceTarget(
  target: WriteTarget,
  data: string | Uint8Array,
  signal: AbortSignal,
): Promise<Stats> {
  const written = await replaceFileIn(target.dirVia, target.name, data, target.current, {
    signal,
    beforeRename: async () => {
      const moved = target.recheck();
      if (moved !== undefined) throw new Error(`${moved}. Nothing was written`);
    },
  });
  const moved = target.recheck();
  if (moved !== undefined) {
    throw new Error(`${moved} during the write: the new content may not be at ${target.realPath}`);
  }
  return written;
}

/**
 * Why the scope forbids reaching `realPath` from `shown`, or undefined. A path that names its real
 * location passes whatever the scope: the permission check saw exactly that path, and no link on it
 * could have been changed since. A path that reaches its file through a link must land inside the
 * allowed directories (and, to be written, not on a protected file), because the link may have been
 * changed after the check; a call meant for such a place names the real path.
 */
export function scopeRefusal(
  shown: string,
  realPath: string,
  scope: FileScope,
  purpose: "read" | "write",
): string | undefined {
  if (shown === realPath) return undefined;
  const advice = `A link on the path may have changed after the permission check; to ${purpose} there, give the real path`;
  if (!scope.directories.some((dir) => isInsideDir(realPath, dir))) {
    return `it leads through a symbolic link to ${realPath}, outside the allowed directories (${scope.directories.join(", ")}). ${advice}`;
  }
  const reason = purpose === "write" ? scope.protectedReason?.(realPath) : undefined;
  if (reason !== undefined) {
    return `it leads through a symbolic link to ${realPath}, a protected file (${reason}). ${advice}`;
  }
  return undefined;
}

function refused(shown: string, why: string): string {
  return `Refused to write ${shown}: ${why}. Nothing was written.`;
}

/** True when `target` is `dir` or inside it (both absolute). */
function isInsideDir(target: string, dir: string): boolean {
  const rel = path.relative(dir, target);
  return rel === "" || (!rel.startsWith(`..${path.sep}`) && rel !== ".." && !path.isAbsolute(rel));
}

/** The directory turned out not to be where the path said (a link on the way changed). */
class DirectoryMovedError extends Error {}

/** Opens directory `dir` (a real path) and confirms the descriptor is the directory now at `dir`. */
function openConfirmedDir(dir: string, create: boolean): number {
  const fd = openDir(dir, create);
  let moved: string | undefined;
  try {
    moved = whereItMoved(fd, dir);
  } catch (err) {
    moved = String(err);
  }
  if (moved !== undefined) {
    fsSync.closeSync(fd);
    throw new DirectoryMovedError(moved);
  }
  return fd;
}

function openDir(dir: string, create: boolean): number {
  try {
    return fsSync.openSync(dir, DIRECTORY_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // O_NOFOLLOW met a link where the check saw a real directory.
    if ((code === "ELOOP" || code === "ENOTDIR") && isSymlink(dir)) {
      throw new DirectoryMovedError(
        `its directory ${dir} is now a symbolic link (a link on the path changed)`,
      );
    }
    if (!create || code !== "ENOENT" || path.dirname(dir) === dir) throw err;
  }
  // Made through the confirmed parent, so a link swapped in above cannot place the new directory elsewhere.
  const parent = openConfirmedDir(path.dirname(dir), true);
  try {
    const at = path.join(throughDescriptor(parent, path.dirname(dir)), path.basename(dir));
    try {
      fsSync.mkdirSync(at);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    return fsSync.openSync(at, DIRECTORY_FLAGS);
  } finally {
    fsSync.closeSync(parent);
  }
}

function isSymlink(p: string): boolean {
  return fsSync.lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink() === true;
}

/**
 * Undefined when the open descriptor `fd` is the directory (or file) at the real path `at` now;
 * otherwise what changed. Linux tells where a descriptor points; elsewhere the path must have no
 * link left and lead to the same device and inode.
 */
export function whereItMoved(
  fd: number,
  at: string,
  what: "its directory" | "the file" = "its directory",
): string | undefined {
  if (hasProcFd()) {
    const actual = fsSync.readlinkSync(`/proc/self/fd/${fd}`);
    return actual === at
      ? undefined
      : `${what} ${at} is now reached at ${actual} (a link on the path changed)`;
  }
  const real = fsSync.realpathSync.native(at);
  const now = fsSync.statSync(at);
  const held = fsSync.fstatSync(fd);
  if (real === at && now.dev === held.dev && now.ino === held.ino) return undefined;
  return `${what} ${at} was replaced (a link on the path changed)`;
}

/** The path that reaches the descriptor's directory: through /proc on Linux, else `dir` itself. */
function throughDescriptor(fd: number, dir: string): string {
  return hasProcFd() ? `/proc/self/fd/${fd}` : dir;
}

let procFd: boolean | undefined;
/** Whether this system lets a path go through an open directory handle (Linux's /proc/self/fd). */
function hasProcFd(): boolean {
  procFd ??= process.platform === "linux" && fsSync.existsSync("/proc/self/fd");
  return procFd;
}
