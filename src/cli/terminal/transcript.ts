/**
 * The conversation as printed, kept so it can be drawn again: each printed piece is a block that
 * renders itself for a width (markdown source, a tool line, a thinking summary), not the ANSI text
 * it produced. When the terminal is resized or the thinking view toggled, the screen clears and
 * draws the newest blocks again at the new width, as Claude Code redraws its static transcript.
 *
 * The work is bounded both ways: at most `KEPT_CHARS` characters of blocks are kept (the oldest
 * are dropped), and a redraw renders only the newest blocks that fill `REDRAW_ROWS` terminal rows
 * (tmux's default scrollback), the oldest of them cut to its last rows.
 */
import { textWidth } from "./text-width.js";

/** A printed piece: its text at `columns` cells wide (ending with a newline, or "" for nothing). */
export type Block = (columns: number) => string;

/** Rows a redraw fills at most: what a terminal's scrollback commonly keeps (tmux: 2000 lines). */
export const REDRAW_ROWS = 2000;
/** Characters of blocks kept (their text when first printed); older blocks are forgotten. */
const KEPT_CHARS = 1 << 20;

/** The kept blocks. */
export interface Transcript {
  /**
   * Keeps `block`, whose first rendering was `printed`; its size (that, or the `keeps` characters it
   * holds if more) counts against the bound.
   */
  add(block: Block, printed: string, keeps?: number): void;
  /**
   * The newest blocks rendered at `columns`, oldest first, filling at most `maxRows` rows; when
   * anything older is left out, a first line says so (`earlier` styles it).
   */
  render(columns: number, maxRows?: number, earlier?: (text: string) => string): string;
  /** Blocks kept now. */
  readonly size: number;
}

interface Kept {
  block: Block;
  chars: number;
}

/** Creates an empty transcript keeping at most `keptChars` characters of blocks. */
export function createTranscript(keptChars = KEPT_CHARS): Transcript {
  // A ring would save the shifts; dropping is rare (once per ~1 MB printed) and `splice` is one move.
  const blocks: Kept[] = [];
  let chars = 0;
  let forgotten = false;

  return {
    get size() {
      return blocks.length;
    },
    add(block, printed, keeps = 0) {
      const size = Math.max(printed.length, keeps);
      blocks.push({ block, chars: size });
      chars += size;
      let drop = 0;
      while (chars > keptChars && drop < blocks.length - 1) chars -= blocks[drop++].chars;
      if (drop > 0) {
        blocks.splice(0, drop);
        forgotten = true;
      }
    },
    render(columns, maxRows = REDRAW_ROWS, earlier = (t) => t) {
      const parts: string[] = [];
      let rows = 0;
      let cut = forgotten;
      for (let i = blocks.length - 1; i >= 0; i--) {
        const text = blocks[i].block(columns);
        if (text === "") continue;
        const lines = text.replace(/\n$/, "").split("\n");
        const heights = lines.map((line) => rowsOf(line, columns));
        const height = heights.reduce((a, b) => a + b, 0);
        if (rows + height <= maxRows) {
          parts.push(text.endsWith("\n") ? text : `${text}\n`);
          rows += height;
          continue;
        }
        // The oldest block shown: only its last lines that still fit.
        let keep = lines.length;
        let room = maxRows - rows;
        while (keep > 0 && heights[keep - 1] <= room) room -= heights[--keep];
        if (keep < lines.length) parts.push(`${lines.slice(keep).join("\n")}\n`);
        cut = true;
        break;
      }
      if (cut) parts.push(`${earlier("… earlier output is not redrawn")}\n`);
      return parts.reverse().join("");
    },
  };
}

/** Terminal rows one line takes at `columns` (an empty line still takes one). */
function rowsOf(line: string, columns: number): number {
  return Math.max(1, Math.ceil(textWidth(line) / columns));
}
