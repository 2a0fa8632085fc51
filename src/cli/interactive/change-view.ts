/**
 * What an Edit or Write would do to its file, shown in the permission question as a diff: the lines
 * removed and added, with their line numbers and three lines of context, computed by the same
 * replacement the Edit tool makes (`planEdit`), so the user approves the change itself rather than
 * two strings to find in their head. Every character is shown exactly (`call-view.ts`'s escaping and
 * wrapping); input fields the diff does not stand for are shown as fields under it. Where no diff can
 * be made (the file unreadable, large, or the edit would fail), the question shows the call's fields.
 *
 *   file_path: src/app.ts (1 line removed, 2 added)
 *      12   const port = 3000;
 *      13 - listen(port);
 *      13 + listen(port, "127.0.0.1");
 *      14 + log("up");
 */
import { isAbsolute, resolve } from "node:path";
import { planEdit } from "../../tools/index.js";
import { plural, textForDiff } from "../diff-input.js";
import { loadRich } from "../rich-loader.js";
import type { Style } from "../style.js";
import { type CallView, fieldRows, inputFields, rowsView, wrapped } from "./call-view.js";

/** The fields each tool's diff stands for; any other field of its input is shown as is. */
const SHOWN_BY_DIFF: Record<string, string[]> = {
  Edit: ["file_path", "old_string", "new_string", "replace_all"],
  Write: ["file_path", "content"],
};

/** The diff view of an Edit or Write call, or undefined when none can be made. */
export async function changeView(
  toolName: string,
  input: unknown,
  cwd: string,
  style: Style,
  mark: (s: string) => string,
): Promise<CallView | undefined> {
  const covered = SHOWN_BY_DIFF[toolName];
  if (!covered || input === null || typeof input !== "object" || Array.isArray(input)) return undefined;
  const fields = input as Record<string, unknown>;
  if (typeof fields.file_path !== "string") return undefined;
  const before = readForDiff(
    isAbsolute(fields.file_path) ? fields.file_path : resolve(cwd, fields.file_path),
  );
  if (before === null) return undefined;
  let after: string;
  if (toolName === "Edit") {
    if (
      before === undefined ||
      typeof fields.old_string !== "string" ||
      typeof fields.new_string !== "string"
    )
      return undefined;
    const plan = planEdit(before, fields.old_string, fields.new_string, fields.replace_all === true);
    // The tool will refuse this edit and say why: the question shows the call as it is.
    if (!plan.ok) return undefined;
    after = plan.content;
  } else {
    if (typeof fields.content !== "string") return undefined;
    after = fields.content;
  }
  const rich = await loadRich().catch(() => undefined);
  if (!rich) return undefined;
  const lines = rich.changeLines(before ?? "", after);
  const removed = lines.filter((l) => l?.mark === "-").length;
  const added = lines.filter((l) => l?.mark === "+").length;
  const summary =
    before === undefined
      ? `new file, ${plural(added, "line")}`
      : `${plural(removed, "line")} removed, ${added} added`;
  const others = inputFields(input).filter((f) => !covered.includes(f.name));
  const path = { name: "file_path", value: fields.file_path };
  return rowsView(
    (columns) => {
      const width = Math.max(20, columns - 1);
      const rows = fieldRows(path, width, mark);
      rows[rows.length - 1] += style.dim(` (${summary})`);
      if (lines.length === 0) rows.push(style.dim("  (no change)"));
      for (const line of lines) {
        if (line === undefined) {
          rows.push(style.dim("      ⋮"));
          continue;
        }
        const number = String(line.line).padStart(6);
        const paint = line.mark === "-" ? style.red : line.mark === "+" ? style.green : style.dim;
        const wrappedRows = wrapped(`${number} ${line.mark} `, "         ┆ ", line.text, width, mark);
        rows.push(...wrappedRows.map((r) => (line.mark === " " ? r : paint(r))));
      }
      for (const f of others) rows.push(...fieldRows(f, width, mark));
      return rows;
    },
    `the change is ${plural(removed + added, "line")} long`,
    mark,
  );
}

/**
 * The file's text: undefined when there is no such file (a Write makes it), null when it cannot be
 * diffed (unreadable, large, or not text).
 */
function readForDiff(path: string): string | undefined | null {
  const text = textForDiff(path);
  return text?.includes("\u0000") ? null : text;
}
