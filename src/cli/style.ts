/**
 * Terminal styling for the interactive mode: ANSI colours when stdout is a terminal and `NO_COLOR`
 * is not set, plain text otherwise (pipes, logs, dumb terminals).
 */

/** Styling functions; each returns its input unchanged when colours are off. */
export interface Style {
  enabled: boolean;
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  cyan(s: string): string;
  yellow(s: string): string;
}

/** Whether colours may be used on this stream: a terminal, not TERM=dumb, and `NO_COLOR` unset. */
export function colorOutput(stream: { isTTY?: boolean }, env: Record<string, string | undefined>): boolean {
  return stream.isTTY === true && (env.NO_COLOR ?? "") === "" && env.TERM !== "dumb";
}

/**
 * Whether the interactive mode may drive the terminal (raw keys, a live region redrawn in place):
 * both ends are a terminal and it is not TERM=dumb. `NO_COLOR` turns colours off, not this.
 */
export function cursorControl(
  input: { isTTY?: boolean },
  output: { isTTY?: boolean },
  env: Record<string, string | undefined>,
): boolean {
  return input.isTTY === true && output.isTTY === true && env.TERM !== "dumb";
}

/** Builds the styling functions. */
export function createStyle(enabled: boolean): Style {
  const wrap = (open: number, close: number) => (s: string) =>
    enabled ? `\x1b[${open}m${s}\x1b[${close}m` : s;
  return {
    enabled,
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    cyan: wrap(36, 39),
    yellow: wrap(33, 39),
  };
}
