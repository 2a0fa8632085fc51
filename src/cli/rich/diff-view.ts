/**
 * Edit and Write results as a coloured diff: removed lines red with `-`, added lines green with `+`,
 * a few lines of context, line numbers from the file when it can be read. Made with jsdiff's
 * structured patch. Loaded lazily with `markdown.ts`.
 */
import { structuredPatch } from "diff";
import { plural, textForDiff } from "../diff-input.js";
import type { Style } from "../style.js";

/** Lines of a written file shown before the "+N lines" count. */
const WRITE_LINES_SHOWN = 10;
/** Diff lines shown before the rest is counted. */
const DIFF_LINES_SHOWN = 40;

/** The lines under an Edit call: a summary, then the hunks (each line ending with a newline). */
export function editDiff(
  filePath: string,
  oldText: string,
  newText: string,
  shownPath: string,
  style: Style,
  clean: (s: string) => string,
): string {
  // With the edited file at hand, the diff is of the whole file (real line numbers and context);
  // without it, of the two snippets.
  // With the file unreadable or large, the diff is of the edit's own text.
  const after = textForDiff(filePath) ?? undefined;
  const at = after !== undefined && newText !== "" ? after.indexOf(newText) : -1;
  const [before, now] =
    after !== undefined && at >= 0
      ? [after.slice(0, at) + oldText + after.slice(at + newText.length), after]
      : [oldText, newText];
  const patch = structuredPatch(shownPath, shownPath, before, now, "", "", { context: 2 });
  let added = 0;
  let removed = 0;
  const body: string[] = [];
  for (const hunk of patch.hunks) {
    let oldLine = hunk.oldStart;
    let newLine = hunk.newStart;
    for (const line of hunk.lines) {
      const mark = line[0];
      const text = clean(line.slice(1));
      if (mark === "-") {
        removed++;
        body.push(style.red(`${String(oldLine++).padStart(5)} - ${text}`));
      } else if (mark === "+") {
        added++;
        body.push(style.green(`${String(newLine++).padStart(5)} + ${text}`));
      } else if (mark === " ") {
        body.push(style.dim(`${String(newLine).padStart(5)}   ${text}`));
        oldLine++;
        newLine++;
      }
    }
  }
  const summary = `  ⎿ Updated ${clean(shownPath)} with ${plural(added, "addition")} and ${plural(removed, "removal")}\n`;
  return (
    summary +
    clip(body)
      .map((l) => `    ${l}\n`)
      .join("")
  );
}

/** The lines under a Write call: how much was written and its first lines. */
export function writeView(
  content: string,
  shownPath: string,
  style: Style,
  clean: (s: string) => string,
): string {
  const lines = content.replace(/\n$/, "").split("\n");
  const shown = lines
    .slice(0, WRITE_LINES_SHOWN)
    .map((l, i) => `    ${style.green(`${String(i + 1).padStart(5)} + ${clean(l)}`)}\n`)
    .join("");
  const rest = lines.length - WRITE_LINES_SHOWN;
  return (
    `  ⎿ Wrote ${plural(lines.length, "line")} to ${clean(shownPath)}\n${shown}` +
    (rest > 0 ? `    ${style.dim(`… +${plural(rest, "line")}`)}\n` : "")
  );
}

function clip(lines: string[]): string[] {
  if (lines.length <= DIFF_LINES_SHOWN) return lines;
  return [...lines.slice(0, DIFF_LINES_SHOWN), `… +${lines.length - DIFF_LINES_SHOWN} diff lines`];
}

/** One line of a proposed change: removed, added or context, with its line number in the file. */
interface ChangeLine {
  mark: "-" | "+" | " ";
  line: number;
  text: string;
}

/**
 * The lines that differ between `before` and `after`, with `context` unchanged lines around each
 * change, and a gap (undefined) between hunks; the permission question shows a proposed edit this way.
 */
export function changeLines(before: string, after: string, context = 3): Array<ChangeLine | undefined> {
  const patch = structuredPatch("", "", before, after, "", "", { context });
  const out: Array<ChangeLine | undefined> = [];
  for (const [i, hunk] of patch.hunks.entries()) {
    if (i > 0) out.push(undefined);
    let oldLine = hunk.oldStart;
    let newLine = hunk.newStart;
    for (const line of hunk.lines) {
      const mark = line[0];
      if (mark === "-") out.push({ mark, line: oldLine++, text: line.slice(1) });
      else if (mark === "+") out.push({ mark, line: newLine++, text: line.slice(1) });
      else if (mark === " ") {
        out.push({ mark, line: newLine, text: line.slice(1) });
        oldLine++;
        newLine++;
      }
    }
  }
  return out;
}
