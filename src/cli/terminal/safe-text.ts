/**
 * The one way text from outside Goat (model answers and thinking, tool output, file names, MCP
 * server names, provider errors, session titles) reaches a terminal. Such text is hostile: a control
 * character or escape sequence in it would be obeyed by the terminal (OSC 52 writes the clipboard,
 * OSC 0 the window title, DCS talks to the terminal itself, 8-bit CSI 0x9B moves the cursor), so
 * every one is replaced by a visible stand-in before it is printed:
 *   - C0 controls and DEL as caret notation (`^[` for ESC, `^G` for BEL, `^?` for DEL); newline
 *     stays, a tab becomes two spaces. Escaping ESC neutralises every 7-bit sequence (`ESC ]`,
 *     `ESC P`, `ESC _`, `ESC ^`, `ESC X`, CSI) at once: what follows it is plain text;
 *   - C1 controls U+0080-U+009F (8-bit CSI, OSC, DCS, ST…) as `<U+009B>`;
 *   - the bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) and the
 *     line and paragraph separators (U+2028, U+2029), which reorder or break what is shown, as
 *     `<U+202E>`.
 * The `exact` mode is for what the user is asked to approve (`permission-prompt.ts`): there nothing
 * may look like something else, so it also escapes every invisible or zero-width character
 * (U+200B-U+200F, U+2060-U+2064, U+FEFF, tag characters…) and every space other than U+0020
 * (no-break, en, em, ideographic…), shows a tab as `[tab]`, and collapses a run of four or more
 * spaces into `[N spaces]`, so padding cannot push the rest of a command out of sight.
 * The `styled` mode is the screen's last line of defence (`screen.ts`): the same escaping applied
 * to text that already holds Goat's own styling, which it keeps (SGR sequences only).
 */

/** How `terminalSafe` treats its text. */
export interface SafeTextOptions {
  /**
   * `display` (the default): controls, C1 and bidi controls escaped. `exact`: also invisible
   * characters, unusual spaces, tabs and long runs of spaces marked. `styled`: as `display`, but
   * SGR sequences (colours, bold, dim) pass and tabs stay, for text Goat has styled already.
   */
  mode?: "display" | "exact" | "styled";
  /** Styles each stand-in (the permission question shows them in reverse video). */
  mark?: (standIn: string) => string;
}

/** A piece of escaped text: literal text, or the stand-in for something that cannot be shown. */
export interface SafeSegment {
  text: string;
  /** A stand-in (`^[`, `<U+202E>`, `[300 spaces]`), not literal text. */
  mark: boolean;
}

/** Runs of at least this many spaces are collapsed and counted in `exact` mode. */
const SPACE_RUN = 4;

// C0 but newline, DEL, C1, the line/paragraph separators and the bidi controls.
const CONTROLS = "\\x00-\\x09\\x0b-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069";
// Characters that show as nothing (or as an ordinary space) but are not what they look like.
const INVISIBLE =
  "\\u00a0\\u00ad\\u034f\\u061c\\u115f\\u1160\\u1680\\u17b4\\u17b5\\u180b-\\u180f\\u2000-\\u200f" +
  "\\u202f\\u205f-\\u2064\\u206a-\\u206f\\u3000\\u3164\\ufe00-\\ufe0f\\ufeff\\uffa0\\ufff9-\\ufffb" +
  "\\u{1d173}-\\u{1d17a}\\u{e0000}-\\u{e007f}\\u{e0100}-\\u{e01ef}";

const DISPLAY = new RegExp(`[${CONTROLS}]`, "gu");
const STYLED = new RegExp(`(\\x1b\\[[0-9;:]*m)|[${CONTROLS.replace("\\x00-\\x09", "\\x00-\\x08")}]`, "gu");
const EXACT = new RegExp(`( {${SPACE_RUN},})|[${CONTROLS}${INVISIBLE}]`, "gu");

/**
 * Text made safe to print on a terminal: every control character, escape sequence and (in `exact`
 * mode) invisible character replaced by a visible stand-in. See the module comment for the modes.
 */
export function terminalSafe(text: string, options: SafeTextOptions = {}): string {
  const mark = options.mark;
  if (options.mode === "styled") return text.replace(STYLED, (c, sgr) => sgr ?? standInFor(c, mark));
  if (options.mode === "exact") return text.replace(EXACT, (c, run) => standInFor(run ?? c, mark, true));
  return text.replace(DISPLAY, (c) => (c === "\t" ? "  " : standInFor(c, mark)));
}

/** `exact`-mode text as pieces, so a caller can wrap it without cutting a stand-in in two. */
export function exactSegments(text: string): SafeSegment[] {
  const segments: SafeSegment[] = [];
  let at = 0;
  for (const m of text.matchAll(EXACT)) {
    if (m.index > at) segments.push({ text: text.slice(at, m.index), mark: false });
    segments.push({ text: standInFor(m[0], undefined, true), mark: true });
    at = m.index + m[0].length;
  }
  if (at < text.length) segments.push({ text: text.slice(at), mark: false });
  return segments;
}

/** The visible stand-in for one character (or, in exact mode, a run of spaces). */
function standInFor(c: string, mark: ((s: string) => string) | undefined, exact = false): string {
  const shown = standIn(c, exact);
  return mark ? mark(shown) : shown;
}

function standIn(c: string, exact: boolean): string {
  if (c.length > 1 && c[0] === " ") return `[${c.length} spaces]`;
  if (c === "\t") return exact ? "[tab]" : "  ";
  const cp = c.codePointAt(0) ?? 0;
  if (cp < 0x20 || cp === 0x7f) return `^${String.fromCharCode((cp + 64) % 128)}`;
  return `<U+${cp.toString(16).toUpperCase().padStart(4, "0")}>`;
}

// A line that starts (after indentation and styling) with a mark Goat's own lines start with: a tool
// call `●`, a result `⎿`, thinking `✻`, a retry `⚠`, a picker's `❯`, or a permission question.
const UI_MARK = /^((?:\x1b\[[0-9;:]*m| )*)([●⎿✻⚠❯]|\?(?= Allow ))/gmu;

/**
 * Outside text (an answer, thinking, command output) with Goat's own line marks escaped where a line
 * starts with one, so it cannot pass for a tool call, a result or a permission question of Goat's.
 */
export function withoutUiMarks(text: string): string {
  return text.replace(UI_MARK, (_, lead: string, glyph: string) => `${lead}${standIn(glyph, false)}`);
}

// What JSON.stringify leaves raw that a terminal would obey or reorder: DEL, C1, separators, bidi.
const JSON_RAW_CONTROLS = /[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * `JSON.stringify(value)` with those characters written as `\u` escapes: the same JSON to a parser,
 * and nothing a terminal obeys when a user runs `--output-format json` in one.
 */
export function jsonText(value: unknown): string {
  return JSON.stringify(value).replace(
    JSON_RAW_CONTROLS,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
