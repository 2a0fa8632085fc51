/**
 * The status line of the interactive mode, drawn in the screen's live region while a turn is busy and
 * nothing streams: from Enter to the first token, while tools run, and while a failed call waits to be
 * retried. It shows what is happening, the elapsed time and the tokens so far, and during a retry why
 * and a countdown to the next try. On a pipe or TERM=dumb it draws nothing (the screen has no live
 * region).
 */

import type { Style } from "../style.js";
import type { Screen } from "../terminal/screen.js";
import { clipEnd } from "../terminal/text-width.js";

/** The status line's state, set by the renderer as messages arrive. */
export interface StatusLine {
  /** A turn started (Enter): the clock starts and the line shows `label`. */
  begin(label: string): void;
  /** Shows `label` (a tool running, "Thinking"), keeping the turn's clock. */
  show(label: string): void;
  /** Hides the line while text streams; `show` brings it back. */
  hide(): void;
  /** A retry: shows `reason` and counts down `delayMs`. */
  retry(reason: string, attempt: number, maxRetries: number, delayMs: number): void;
  /** The turn's tokens so far (output estimated from streamed text until a call reports its usage). */
  tokens(input: number, output: number): void;
  /** The turn ended: the line goes away. */
  end(): void;
  /** Milliseconds since `begin`. */
  elapsedMs(): number;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** Creates the status line drawing into `screen`'s `status` section. */
export function createStatusLine(screen: Screen, style: Style, tickMs = 100): StatusLine {
  let started = 0;
  let label = "";
  let visible = false;
  let retryUntil = 0;
  let retryText = "";
  let input = 0;
  let output = 0;
  let frame = 0;
  let timer: NodeJS.Timeout | undefined;

  const tokenText = () => {
    if (input === 0 && output === 0) return "";
    return ` · ↑ ${compact(input)} ↓ ${compact(output)} tokens`;
  };
  const render = () => {
    if (!visible || !screen.live) return;
    const seconds = `${((Date.now() - started) / 1000).toFixed(1)}s`;
    let line: string;
    if (retryUntil > Date.now()) {
      const left = Math.ceil((retryUntil - Date.now()) / 1000);
      line = `${style.yellow("⚠")} ${retryText} · retrying in ${left}s${style.dim(` · ${seconds} · esc to interrupt`)}`;
    } else {
      line = `${style.cyan(FRAMES[frame++ % FRAMES.length])} ${label}${style.dim(` · ${seconds}${tokenText()} · esc to interrupt`)}`;
    }
    screen.setLive("status", [clipEnd(line, screen.columns - 1)]);
  };
  const run = () => {
    if (timer || !screen.live) return;
    timer = setInterval(render, tickMs);
    // The status line must never keep the program alive on its own.
    timer.unref();
  };
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };

  return {
    begin(next) {
      started = Date.now();
      input = 0;
      output = 0;
      retryUntil = 0;
      label = next;
      visible = true;
      render();
      run();
    },
    show(next) {
      label = next;
      if (started === 0) started = Date.now();
      visible = true;
      render();
      run();
    },
    hide() {
      if (!visible) return;
      visible = false;
      stop();
      screen.setLive("status", []);
    },
    retry(reason, attempt, maxRetries, delayMs) {
      retryText = `${reason} (attempt ${attempt}/${maxRetries})`;
      retryUntil = Date.now() + delayMs;
      visible = true;
      render();
      run();
    },
    tokens(i, o) {
      input = i;
      output = o;
    },
    end() {
      visible = false;
      stop();
      started = 0;
      retryUntil = 0;
      screen.setLive("status", []);
    },
    elapsedMs: () => (started === 0 ? 0 : Date.now() - started),
  };
}

/** 1234 → "1.2k". */
export function compact(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}
