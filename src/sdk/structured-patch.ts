/**
 * The `structuredPatch` Claude Code's Write and Edit report to PostToolUse hooks: hunks in jsdiff's
 * shape (`oldStart`, `oldLines`, `newStart`, `newLines`, `lines` prefixed with " ", "-" or "+").
 * One hunk around the changed region (the common head and tail trimmed, three lines of context each
 * side): exact for a single edit, a valid if not minimal patch for several, and linear in the file size.
 */

/** One hunk of a line patch. */
export interface PatchHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

const CONTEXT = 3;

/** The hunks that turn `before` into `after`; none when they are equal. */
export function structuredPatch(before: string, after: string): PatchHunk[] {
  if (before === after) return [];
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const from = Math.max(0, head - CONTEXT);
  const oldEnd = Math.min(a.length, a.length - tail + CONTEXT);
  const newEnd = Math.min(b.length, b.length - tail + CONTEXT);
  const lines = [
    ...a.slice(from, head).map((l) => ` ${l}`),
    ...a.slice(head, a.length - tail).map((l) => `-${l}`),
    ...b.slice(head, b.length - tail).map((l) => `+${l}`),
    ...a.slice(a.length - tail, oldEnd).map((l) => ` ${l}`),
  ];
  const oldLines = oldEnd - from;
  const newLines = newEnd - from;
  return [
    {
      // jsdiff numbers an empty side from the line before it.
      oldStart: oldLines === 0 ? from : from + 1,
      oldLines,
      newStart: newLines === 0 ? from : from + 1,
      newLines,
      lines,
    },
  ];
}

/** Lines as an editor shows them: a final newline does not start another line. */
function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}
