/**
 * The terminal as the interactive mode draws it: finished output scrolls up as ordinary lines, and a
 * live region at the bottom (the answer still streaming, the status line, the prompt) is redrawn in
 * place. Every redraw is one write, wrapped in synchronized-output markers so terminals that know
 * them show no flicker. Without cursor control (a pipe, TERM=dumb) the live region is never drawn and
 * output is written as it comes.
 *
 * Finished output is kept as blocks (`transcript.ts`): when the width changes, once the resizing has
 * settled, the screen and its scrollback are cleared and the blocks drawn again for the new width.
 *
 * Everything printed or drawn passes `terminalSafe`'s `styled` mode: callers escape outside text
 * where it enters, and this is the last line of defence, so a path that forgot cannot send the
 * terminal anything but Goat's colours (an OSC, DCS or C1 control is shown escaped, never obeyed).
 */
import type { Writable } from "node:stream";
import { terminalSafe } from "./safe-text.js";
import { clipStart, stripAnsi, textWidth } from "./text-width.js";
import { type Block, createTranscript, REDRAW_ROWS, type Transcript } from "./transcript.js";

/** The parts of the live region, drawn top to bottom in this order. */
type LiveSection = "preview" | "status" | "input";

/** Where the terminal cursor should sit: a line of the `input` section and a cell column in it. */
interface CursorSpot {
  line: number;
  column: number;
}

/** The output side of the interactive terminal. */
export interface Screen {
  /** Whether the live region is drawn (a terminal with cursor control). */
  readonly live: boolean;
  readonly columns: number;
  readonly rows: number;
  /** Writes finished text above the live region; a trailing partial line waits for its newline. */
  print(text: string): void;
  /**
   * Writes a block rendered at the current width (a fresh line first), and keeps it so a redraw can
   * render it again at another width. `keeps`: the characters the block holds on to (its source),
   * when that is more than it prints now (thinking hidden behind its summary).
   */
  printBlock(block: Block, keeps?: number): void;
  /** Clears the screen and its scrollback and draws the kept blocks again at the current width. */
  redrawAll(): void;
  /** Ends a partial line, if any, so the next print starts on a fresh line. */
  endLine(): void;
  /** Replaces one section of the live region (an empty list removes it) and redraws. */
  setLive(section: LiveSection, lines: string[], cursor?: CursorSpot): void;
  /** Erases the live region and shows the cursor (before leaving). */
  close(): void;
}

/** How long the width must stay unchanged before the transcript is redrawn (a drag sends many). */
export const RESIZE_SETTLE_MS = 80;

/** Options of `createScreen`. */
export interface ScreenOptions {
  /** Where COLUMNS and LINES are read when the stream has no size. */
  env?: Record<string, string | undefined>;
  /** Where printed blocks are kept (a fresh one by default). */
  transcript?: Transcript;
  /** Styles the note a redraw puts above what it could not draw (dim, or nothing under NO_COLOR). */
  dim?: (text: string) => string;
}

/** Creates a screen over `out`; `live` says whether cursor control may be used. */
export function createScreen(
  out: Writable & { columns?: number; rows?: number; on?: Writable["on"] },
  live: boolean,
  options: ScreenOptions = {},
): Screen {
  const env = options.env ?? process.env;
  const transcript = options.transcript ?? createTranscript();
  const dim = options.dim ?? ((text: string) => text);
  const sections = new Map<LiveSection, string[]>();
  let cursor: CursorSpot | undefined;
  // Rows between the top of the drawn live region and the row the cursor was left on.
  let cursorRow = 0;
  let drawn = false;
  let partial = "";
  let closed = false;
  // What the live region held when last drawn, to find its rows again after a resize.
  let lastDrawn: DrawnRegion | undefined;

  /** Text as it may reach the terminal: SGR styling kept, any other control shown escaped. */
  const clean = (text: string) => terminalSafe(text, { mode: "styled" });
  const columns = () => Math.max(10, out.columns || Number(env.COLUMNS) || 80);
  const rows = () => Math.max(5, out.rows || Number(env.LINES) || 24);
  // A line of w cells takes floor(w / cols) + 1 rows: a line exactly filling the width gets its cursor
  // row on the next line (written as " \r"), so row counting never depends on the terminal's pending wrap.
  const rowsOf = (line: string) => Math.floor(textWidth(line) / columns()) + 1;

  const eraseLive = () => {
    if (!drawn) return "";
    drawn = false;
    return `${cursorRow > 0 ? `\x1b[${cursorRow}A` : ""}\r\x1b[J`;
  };

  const drawLive = () => {
    if (closed) return "";
    const cols = columns();
    const lines: string[] = [];
    // The preview of a partial line and of the streaming block is clipped to what fits on screen:
    // rows scrolled off the top could not be erased again.
    const budget = Math.max(3, rows() - 2 - (sections.get("input")?.length ?? 1) - 1);
    const preview = [...(partial ? [partial] : []), ...(sections.get("preview") ?? [])];
    let previewRows = 0;
    const shown: string[] = [];
    for (let i = preview.length - 1; i >= 0; i--) {
      const r = rowsOf(preview[i]);
      if (previewRows + r > budget) {
        if (shown.length === 0) shown.unshift(clipStart(stripAnsi(preview[i]), cols * budget - 1));
        break;
      }
      previewRows += r;
      shown.unshift(preview[i]);
    }
    lines.push(...shown);
    lines.push(...(sections.get("status") ?? []));
    const inputStart = lines.length;
    lines.push(...(sections.get("input") ?? []));
    if (lines.length === 0) return "";
    lastDrawn = {
      lines,
      cursorLine: cursor ? inputStart + cursor.line : -1,
      cursorColumn: cursor?.column ?? 0,
    };
    let text = "";
    let row = 0;
    let targetRow = -1;
    let targetCol = 0;
    lines.forEach((line, i) => {
      if (i > 0) text += "\n";
      if (cursor && i === inputStart + cursor.line) {
        targetRow = row + Math.floor(cursor.column / cols);
        targetCol = cursor.column % cols;
      }
      const w = textWidth(line);
      text += line;
      if (w > 0 && w % cols === 0) text += " \r";
      row += Math.floor(w / cols) + 1;
    });
    const endRow = row - 1;
    if (targetRow >= 0) {
      if (endRow > targetRow) text += `\x1b[${endRow - targetRow}A`;
      text += "\r";
      if (targetCol > 0) text += `\x1b[${targetCol}C`;
      cursorRow = targetRow;
      text += "\x1b[?25h";
    } else cursorRow = endRow;
    drawn = true;
    return text;
  };

  const redraw = (before = "", erase = eraseLive()) => {
    if (closed) return;
    const show = cursor ? "" : "\x1b[?25l";
    out.write(`\x1b[?2026h${show}${erase}${before}${drawLive()}\x1b[?2026l`);
  };

  // The width the kept blocks were last drawn at.
  let drawnColumns = columns();
  const redrawAll = () => {
    if (!live || closed) return;
    drawnColumns = columns();
    drawn = false;
    // Home, clear the screen, then the scrollback (in that order, as `clear` does: some terminals
    // push the cleared screen into the scrollback).
    redraw(transcript.render(drawnColumns, REDRAW_ROWS, dim), "\x1b[H\x1b[2J\x1b[3J");
  };
  let settle: NodeJS.Timeout | undefined;
  out.on?.("resize", () => {
    if (!live || closed) return;
    // Most terminals (tmux, kitty, iTerm2, VTE) re-wrap what is on screen to the new width: where the
    // cursor now sits in the old live region is worked out again at that width, so it is erased whole.
    if (drawn && lastDrawn) cursorRow = cursorRowAt(lastDrawn, columns());
    redraw();
    // The transcript itself is drawn again once the width stops changing.
    clearTimeout(settle);
    settle = setTimeout(() => {
      if (columns() !== drawnColumns) redrawAll();
    }, RESIZE_SETTLE_MS);
    settle.unref();
  });

  /** Keeps finished literal text (whole lines) as a block of its own. */
  const keep = (text: string) => {
    if (live && text !== "") transcript.add(() => text, text);
  };

  return {
    live,
    get columns() {
      return columns();
    },
    get rows() {
      return rows();
    },
    print(raw) {
      if (raw === "") return;
      const text = clean(raw);
      if (!live) {
        out.write(text);
        return;
      }
      const all = partial + text;
      const cut = all.lastIndexOf("\n");
      if (cut < 0) {
        partial = all;
        redraw();
        return;
      }
      partial = all.slice(cut + 1);
      keep(all.slice(0, cut + 1));
      redraw(all.slice(0, cut + 1));
    },
    printBlock(unsafe, keeps = 0) {
      const block: Block = (width) => clean(unsafe(width));
      if (!live) {
        out.write(block(columns()));
        return;
      }
      this.endLine();
      const text = block(columns());
      transcript.add(block, text, keeps);
      if (text !== "") redraw(text.endsWith("\n") ? text : `${text}\n`);
    },
    redrawAll,
    endLine() {
      if (!live) return;
      if (partial !== "") this.print("\n");
    },
    setLive(section, lines, spot) {
      if (lines.length === 0) sections.delete(section);
      else sections.set(section, lines.map(clean));
      if (section === "input") cursor = lines.length > 0 ? spot : undefined;
      if (live) redraw();
    },
    close() {
      if (closed) return;
      clearTimeout(settle);
      const rest = live ? `${eraseLive()}${partial ? `${partial}\n` : ""}\x1b[?25h` : "";
      partial = "";
      closed = true;
      sections.clear();
      if (rest) out.write(rest);
    },
  };
}

/** The live region as last drawn: its lines, and the line and cell column the cursor was put on. */
interface DrawnRegion {
  lines: string[];
  /** -1 when the cursor was left at the end. */
  cursorLine: number;
  cursorColumn: number;
}

/** The row of the region (from its top) the cursor is on when the region is wrapped at `cols`. */
function cursorRowAt(region: DrawnRegion, cols: number): number {
  let row = 0;
  for (const [i, line] of region.lines.entries()) {
    if (i === region.cursorLine) return row + Math.floor(region.cursorColumn / cols);
    row += Math.floor(textWidth(line) / cols) + 1;
  }
  return Math.max(0, row - 1);
}
