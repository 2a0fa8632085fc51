/**
 * What the terminal's diffs of edits share: a file's text when it is small enough to diff (the
 * permission question's proposed change, `interactive/change-view.ts`, and the result's diff, `rich/diff-view.ts`),
 * and counts in words.
 */
import { readFileSync, statSync } from "node:fs";

/** A file larger than this is not read for a diff. */
const DIFF_MAX_BYTES = 2_000_000;

/**
 * The file's text: undefined when there is no such file, null when it cannot be diffed (unreadable,
 * not a file, or larger than 2 MB).
 */
export function textForDiff(path: string): string | undefined | null {
  try {
    const stat = statSync(path);
    if (!stat.isFile() || stat.size > DIFF_MAX_BYTES) return null;
    return readFileSync(path, "utf8");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? undefined : null;
  }
}

/** `3 lines`, `1 line`. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
