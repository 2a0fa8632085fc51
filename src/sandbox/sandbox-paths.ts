/** Small path helpers the sandboxes share: real paths, existing directories, macOS's private TMPDIR. */
import { lstatSync, mkdtempSync, realpathSync, type Stats, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** The real path, or the path itself when it cannot be resolved (missing). */
export function realOrSelf(p: string): string {
  return realOrUndefined(p) ?? p;
}

/** lstat, or undefined when the path is missing or a parent is not a directory (`.git` a file). */
export function lstatOrUndefined(p: string): Stats | undefined {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

/** The real path, or undefined when it cannot be resolved. */
export function realOrUndefined(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

/** The directories of `dirs` that exist, without repeats (bwrap fails on a missing source). */
export function existingDirs(dirs: readonly string[]): string[] {
  return [...new Set(dirs)].filter(isDirectory);
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

let macTemp: string | undefined;

/**
 * A temporary directory of the process's own making (mode 0700, from mkdtemp), for sandboxes that
 * cannot mount a private /tmp (macOS): made on first use, shared by the process's sandboxed commands.
 */
export function privateTempDir(): string {
  macTemp ??= realOrSelf(mkdtempSync(path.join(tmpdir(), "goat-sandbox-tmp-")));
  return macTemp;
}
