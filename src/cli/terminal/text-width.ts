/**
 * Display width of terminal text: ANSI sequences take no room, combining marks none, East Asian wide
 * characters and emoji two cells. Enough for laying out prompts and status lines without a dependency.
 */

/** Matches ANSI escape sequences (CSI, OSC hyperlinks, charset selection). */
const ANSI_PATTERN = /\x1b\[[0-9;?:<=>]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][A-Za-z0-9]/g;

/** The text without ANSI sequences. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI_PATTERN, "");
}

/** Cells one code point takes. */
export function charWidth(cp: number): number {
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return 0;
  if (cp < 0x300) return 1;
  // Combining marks, zero-width joiner and variation selectors.
  if (
    (cp >= 0x300 && cp <= 0x36f) ||
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    (cp >= 0x1ab0 && cp <= 0x1aff) ||
    (cp >= 0x20d0 && cp <= 0x20ff)
  )
    return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x1fa70 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  )
    return 2;
  return 1;
}

/** Cells the text takes on one line (ANSI sequences ignored). */
export function textWidth(text: string): number {
  let width = 0;
  for (const ch of stripAnsi(text)) width += charWidth(ch.codePointAt(0) ?? 0);
  return width;
}

/**
 * Cuts plain text (no ANSI) into pieces of at most `columns` cells, breaking anywhere, the way the
 * terminal itself wraps: used to know how many rows a line takes.
 */
function hardWrap(text: string, columns: number): string[] {
  const rows: string[] = [];
  let row = "";
  let width = 0;
  for (const ch of text) {
    const w = charWidth(ch.codePointAt(0) ?? 0);
    if (width + w > columns && row !== "") {
      rows.push(row);
      row = "";
      width = 0;
    }
    row += ch;
    width += w;
  }
  rows.push(row);
  return rows;
}

/** The last `max` cells of plain text, with "…" in front when cut. */
export function clipStart(text: string, max: number): string {
  if (textWidth(text) <= max) return text;
  const chars = [...text];
  let width = 1;
  let i = chars.length;
  while (i > 0 && width + charWidth(chars[i - 1].codePointAt(0) ?? 0) <= max) {
    i--;
    width += charWidth(chars[i].codePointAt(0) ?? 0);
  }
  return `…${chars.slice(i).join("")}`;
}

/** The first `max` cells of text that may hold ANSI sequences, with "…" when cut (sequences kept). */
export function clipEnd(text: string, max: number): string {
  if (textWidth(text) <= max) return text;
  let out = "";
  let width = 0;
  let i = 0;
  while (i < text.length) {
    ANSI_PATTERN.lastIndex = i;
    const m = text[i] === "\x1b" ? ANSI_PATTERN.exec(text) : null;
    if (m && m.index === i) {
      out += m[0];
      i += m[0].length;
      continue;
    }
    const cp = text.codePointAt(i) ?? 0;
    const ch = String.fromCodePoint(cp);
    const w = charWidth(cp);
    if (width + w > max - 1) break;
    out += ch;
    width += w;
    i += ch.length;
  }
  return `${out}…${text.includes("\x1b") ? "\x1b[0m" : ""}`;
}

/**
 * Wraps plain text (one line, no ANSI) at spaces into rows of at most `columns` cells; a word longer
 * than a row is cut where it must be. Spaces at a break are dropped.
 */
export function wordWrap(text: string, columns: number): string[] {
  const rows: string[] = [];
  let row = "";
  let width = 0;
  for (const word of text.split(/( +)/)) {
    if (word === "") continue;
    const w = textWidth(word);
    if (width + w <= columns) {
      row += word;
      width += w;
      continue;
    }
    if (word.trim() === "") {
      // Spaces at the end of a row: they end it.
      rows.push(row);
      row = "";
      width = 0;
      continue;
    }
    if (row.trim() !== "") rows.push(row.trimEnd());
    const pieces = hardWrap(word, columns);
    row = pieces.pop() ?? "";
    rows.push(...pieces);
    width = textWidth(row);
  }
  if (row !== "" || rows.length === 0) rows.push(row);
  return rows;
}
