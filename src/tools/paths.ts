/**
 * Path helpers shared by the file tools and the permissions layer: what counts as an absolute path,
 * `~` expansion, and resolution to the real path on disk (symlinks followed even for files that do
 * not exist yet), so a scope check sees where a write would really land.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** How many symlinks we follow before calling it a loop (Linux's own limit is 40). */
const MAX_SYMLINK_HOPS = 40;

/** Expands a leading `~` or `~/` to the user's home directory; other paths are returned unchanged. */
export function expandHome(filePath: string): string {
  if (filePath === "~") return os.homedir();
  if (filePath.startsWith("~/")) return path.join(os.homedir(), filePath.slice(2));
  return filePath;
}

/** True when the path is absolute, counting `~` and `~/…` (they name a fixed place, not one relative to cwd). */
export function isAbsoluteToolPath(filePath: string): boolean {
  return path.isAbsolute(expandHome(filePath));
}

/**
 * The error text for a relative path, or `undefined` when the path is absolute. The text shows the
 * absolute form so the model can retry at once.
 */
export function relativePathError(filePath: string, cwd: string): string | undefined {
  if (isAbsoluteToolPath(filePath)) return undefined;
  const absolute = path.resolve(cwd, filePath);
  return `file_path must be an absolute path, not a relative one: "${filePath}". Did you mean "${absolute}"?`;
}

/** Expands `~` and resolves the path against `cwd` (normalising `..`), without touching the disk. */
export function toAbsolutePath(filePath: string, cwd: string): string {
  return path.resolve(cwd, expandHome(filePath));
}

/**
 * Resolves a tool's path to where it really is on disk: expands `~`, resolves against `cwd`, and
 * follows symlinks in every existing component. For a path that does not exist yet, the deepest
 * existing ancestor is resolved and the rest appended; a dangling symlink is followed to its target,
 * because writing through it would create the target. A symlink loop returns the lexical path.
 *
 * @example resolveToolPath("~/notes/../todo.md", "/tmp") // "/home/me/todo.md" (realpath'd)
 */
export function resolveToolPath(filePath: string, cwd: string): string {
  return resolveReal(toAbsolutePath(filePath, cwd), 0);
}

function resolveReal(absolute: string, hops: number): string {
  try {
    return fs.realpathSync.native(absolute);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") return absolute;
  }
  const parent = path.dirname(absolute);
  if (parent === absolute) return absolute;
  const base = path.basename(absolute);
  const realParent = resolveReal(parent, hops);
  const candidate = path.join(realParent, base);
  const target = readLinkOrUndefined(candidate);
  if (target === undefined || hops >= MAX_SYMLINK_HOPS) return candidate;
  // A dangling symlink: the file it points at is where a write would go.
  return resolveReal(path.resolve(realParent, target), hops + 1);
}

function readLinkOrUndefined(p: string): string | undefined {
  try {
    return fs.readlinkSync(p);
  } catch {
    // Not a symlink (EINVAL) or not there (ENOENT): either way there is no link to follow.
    return undefined;
  }
}
