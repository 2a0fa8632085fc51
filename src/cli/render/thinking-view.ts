/**
 * The model's thinking in the interactive mode, shown as Claude Code 2.x shows it:
 *   - collapsed (the default): while it streams, the status line says "Thinking…"; when it ends, one
 *     dim line sums it up: `✻ Thought for 3.2s · 412 words (ctrl+o to expand)`;
 *   - expanded (Ctrl-O, or always with `--verbose` / `"verbose": true` in settings): a dim
 *     `✻ Thinking…` heading and the full text, dimmed and indented, streamed paragraph by paragraph.
 * Ctrl-O switches between the two for the whole conversation: each thinking is printed as blocks that
 * render by the current view (a heading, its paragraphs, its summary line, each empty in the other
 * view), so a redraw of the transcript shows every earlier thinking the new way. Claude Code opens a
 * separate transcript screen on Ctrl-O instead; here the conversation itself changes, so the answer
 * stays next to the thinking that led to it. Redacted thinking is one line saying so.
 */
import type { Style } from "../style.js";
import { withoutUiMarks } from "../terminal/safe-text.js";
import type { Screen } from "../terminal/screen.js";
import { wordWrap } from "../terminal/text-width.js";

/** Thinking as the renderer feeds it: a block starts, streams, ends; or arrives whole. */
export interface ThinkingView {
  /** Whether thinking shows in full. */
  readonly expanded: boolean;
  /** Switches between collapsed and expanded (the caller redraws the transcript). */
  toggle(): void;
  /** Whether a thinking block is streaming. */
  readonly active: boolean;
  /** A thinking block started streaming. */
  start(): void;
  /** More of the streaming block's text (already made safe for the terminal). */
  push(delta: string): void;
  /** The streaming block ended. */
  end(): void;
  /** A thinking block that arrived whole (not streamed). */
  whole(text: string): void;
  /** A redacted thinking block (encrypted by the provider, nothing to show). */
  redacted(): void;
}

/** One thinking block: its text so far and when it started and ended (ms; 0 when unknown). */
export interface Episode {
  text: string;
  started: number;
  ended: number | undefined;
}

/**
 * Creates the view printing into `screen`; `expanded` is the initial view; `live` says whether
 * Ctrl-O is there to press (the summary line names it, or `--verbose` when it is not).
 */
export function createThinkingView(
  screen: Screen,
  style: Style,
  options: { expanded: boolean; live: boolean; now?: () => number },
): ThinkingView {
  const now = options.now ?? Date.now;
  let expanded = options.expanded;
  let episode: Episode | undefined;
  // The streaming block's text not printed yet: the paragraph being written.
  let pending = "";
  const hint = options.live ? "ctrl+o to expand" : "--verbose shows it";

  const heading = () => (expanded ? `${style.dim("✻ Thinking…")}\n` : "");
  const paragraphs = (text: string) => (columns: number) =>
    expanded ? `${indented(text, columns, style)}\n` : "";
  // Worked out once, when the thinking ended: the block keeps two short strings, not the text.
  const summary = (e: Episode) => {
    const empty = e.text.trim() === "";
    const line = `${style.dim(summaryLine(e, empty ? undefined : hint))}\n`;
    const note = empty ? `${style.dim("  (no thinking text was returned)")}\n` : "";
    return () => (expanded ? note : line);
  };
  const preview = () =>
    screen.setLive(
      "preview",
      expanded && pending !== ""
        ? pending.split("\n").map((line) => `  ${style.dim(withoutUiMarks(line))}`)
        : [],
    );

  /** Prints the paragraphs that are complete (all of them when `all`). */
  const flush = (all: boolean) => {
    const cut = all ? pending.length : pending.lastIndexOf("\n\n") + 2;
    if (cut <= 1 || pending.slice(0, cut).trim() === "") {
      if (all) pending = "";
      preview();
      return;
    }
    const done = pending.slice(0, cut);
    pending = pending.slice(cut);
    preview();
    screen.printBlock(paragraphs(done), done.length);
  };

  return {
    get expanded() {
      return expanded;
    },
    get active() {
      return episode !== undefined;
    },
    toggle() {
      expanded = !expanded;
      // The preview is the answer's while no thinking streams.
      if (episode) preview();
    },
    start() {
      if (episode) this.end();
      episode = { text: "", started: now(), ended: undefined };
      screen.printBlock(heading);
    },
    push(delta) {
      if (!episode) this.start();
      (episode as Episode).text += delta;
      pending += delta;
      flush(false);
    },
    end() {
      if (!episode) return;
      flush(true);
      episode.ended = now();
      screen.printBlock(summary(episode));
      episode = undefined;
    },
    whole(text) {
      if (episode) this.end();
      const e: Episode = { text, started: 0, ended: undefined };
      screen.printBlock(heading);
      if (text.trim() !== "") screen.printBlock(paragraphs(text), text.length);
      screen.printBlock(summary(e));
    },
    redacted() {
      if (episode) this.end();
      screen.printBlock(() => `${style.dim("✻ Thinking redacted by the provider")}\n`);
    },
  };
}

/** `✻ Thought for 3.2s · 412 words (ctrl+o to expand)`; without a duration when it is unknown. */
export function summaryLine(e: Episode, hint: string | undefined): string {
  const seconds =
    e.started > 0 && e.ended !== undefined ? Math.max(0, (e.ended - e.started) / 1000) : undefined;
  const time =
    seconds === undefined ? "" : ` for ${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)}s`;
  const words = e.text.trim() === "" ? 0 : e.text.trim().split(/\s+/).length;
  const size = words > 0 ? ` · ${words} word${words === 1 ? "" : "s"}` : "";
  const tail = words > 0 ? (hint ? ` (${hint})` : "") : " (no thinking text was returned)";
  return `✻ Thought${time}${size}${tail}`;
}

/** The text dimmed, each line wrapped to the width and indented two cells (blank lines kept). */
function indented(text: string, columns: number, style: Style): string {
  const width = Math.max(10, columns - 3);
  const lines = text.replace(/\n$/, "").split("\n");
  return lines
    .flatMap((line) => (line === "" ? [""] : wordWrap(line, width)))
    .map((row) => (row === "" ? "" : `  ${style.dim(withoutUiMarks(row))}`))
    .join("\n");
}
