/**
 * The spinner shown while a tool runs: a frame, the tool's label and the elapsed time, redrawn on one
 * line. It draws nothing when disabled (stdout not a terminal, or NO_COLOR).
 */
import type { Writable } from "node:stream";

/** A spinner on one output line. */
export interface Spinner {
  /** Starts (or relabels) the spinner; the elapsed time counts from the first start. */
  start(label: string): void;
  /** Clears the line and stops. Safe to call when not running. */
  stop(): void;
  readonly running: boolean;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** Creates a spinner writing to `out`. */
export function createSpinner(out: Writable, enabled: boolean, intervalMs = 100): Spinner {
  let timer: NodeJS.Timeout | undefined;
  let label = "";
  let started = 0;
  let frame = 0;
  const draw = () => {
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    out.write(`\r\x1b[K${FRAMES[frame++ % FRAMES.length]} ${label} ${seconds}s`);
  };
  return {
    start(next) {
      label = next;
      if (!enabled) return;
      if (!timer) {
        started = Date.now();
        timer = setInterval(draw, intervalMs);
        // A spinner must never keep the program alive on its own.
        timer.unref();
      }
      draw();
    },
    stop() {
      if (!timer) return;
      clearInterval(timer);
      timer = undefined;
      out.write("\r\x1b[K");
    },
    get running() {
      return timer !== undefined;
    },
  };
}
