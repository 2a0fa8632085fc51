/**
 * Drives `goat` in a real pseudo-terminal through util-linux `script`: spawn it, type into it, resize
 * it, wait for text on its screen output, collect its exit status.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readlinkSync } from "node:fs";
import xterm from "@xterm/headless";
import { findDescendant } from "../support/processes.js";
import { CLI } from "./helpers.js";

/** A CLI running in a pseudo-terminal. */
export interface PtySession {
  /** Everything written to the terminal so far, ANSI sequences stripped. */
  output(): string;
  /** Everything written to the terminal so far, as written. */
  raw(): string;
  /**
   * What a terminal of the same size shows after all that output (scrollback included, trailing blank
   * lines dropped): redraws and erased text are gone, as a user would see it.
   */
  screen(): Promise<string>;
  type(text: string): void;
  /**
   * Resizes the terminal as a window resize does (the pty's size changes and goat gets SIGWINCH);
   * `screen()` replays the output at the new size from this point on.
   */
  resize(columns: number, rows: number): void;
  /** Waits until `pattern` appears in the raw output (escape sequences included) after `from`. */
  waitForRaw(pattern: string, options?: { from?: number; timeoutMs?: number }): Promise<number>;
  /** Waits until `pattern` appears in the output after `from` (an index into output()). */
  waitFor(pattern: RegExp | string, options?: { from?: number; timeoutMs?: number }): Promise<number>;
  exited: Promise<number | null>;
  kill(): void;
  /** The pid of `goat` itself (a child of `script`), once it has started. */
  goatPid(): number | undefined;
}

const ANSI = /\x1b\[[0-9;?<>=]*[A-Za-z~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][A-Z0-9]|\r/g;

const COLUMNS = 200;
const ROWS = 50;

/**
 * Starts `node dist/bin/goat.js args…` in a pty (200 × 50 unless `columns` / `rows` say otherwise).
 * `pipeOutput`: goat's output goes through a pipe (`goat | cat`) while its input is the terminal.
 */
export function startPty(
  args: string[],
  env: Record<string, string>,
  cwd: string,
  options: { term?: string; columns?: number; rows?: number; pipeOutput?: boolean } = {},
): PtySession {
  const quoted = ["node", CLI, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  const command = options.pipeOutput ? `${quoted} | cat` : quoted;
  const columns = options.columns ?? COLUMNS;
  const rows = options.rows ?? ROWS;
  // `script` leaves the pty without a size when its own stdin is not a terminal: goat reads these.
  const child: ChildProcess = spawn("script", ["-qfec", command, "/dev/null"], {
    env: { ...env, TERM: options.term ?? "xterm", COLUMNS: String(columns), LINES: String(rows) },
    cwd,
    stdio: ["pipe", "pipe", "pipe"],
  });
  // Where in the output each resize happened, for the replay in `screen()`.
  const sizes: Array<{ at: number; columns: number; rows: number }> = [];
  let raw = "";
  const listeners = new Set<() => void>();
  const onData = (b: Buffer) => {
    raw += b.toString();
    for (const l of listeners) l();
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const output = () => raw.replace(ANSI, "");
  const waitUntil = (
    find: () => number,
    what: string,
    timeoutMs: number,
    shown: () => string,
  ): Promise<number> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const i = find();
        if (i >= 0) {
          listeners.delete(check);
          clearTimeout(timer);
          resolve(i);
        }
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`timed out waiting for ${what}; screen so far:\n${shown()}`));
      }, timeoutMs);
      listeners.add(check);
      check();
    });
  const goatPid = () => findDescendant(child.pid, CLI);
  return {
    output,
    raw: () => raw,
    screen: () =>
      new Promise((resolve) => {
        const term = new xterm.Terminal({ cols: columns, rows, scrollback: 10_000, allowProposedApi: true });
        // The output in pieces, the terminal resized between them where the pty was.
        let at = 0;
        const steps = [...sizes, { at: raw.length, columns: 0, rows: 0 }];
        const next = (i: number) => {
          const step = steps[i];
          term.write(raw.slice(at, step.at), () => {
            at = step.at;
            if (i < steps.length - 1) {
              term.resize(step.columns, step.rows);
              next(i + 1);
              return;
            }
            const buffer = term.buffer.active;
            const lines: string[] = [];
            for (let n = 0; n < buffer.length; n++)
              lines.push(buffer.getLine(n)?.translateToString(true) ?? "");
            term.dispose();
            resolve(lines.join("\n").replace(/\n+$/, ""));
          });
        };
        next(0);
      }),
    type: (text) => child.stdin?.write(text),
    resize(newColumns, newRows) {
      const pid = goatPid();
      if (pid === undefined) throw new Error("goat is not running");
      // Setting the pty's size makes the kernel send SIGWINCH to the terminal's foreground process.
      const tty = readlinkSync(`/proc/${pid}/fd/1`);
      sizes.push({ at: raw.length, columns: newColumns, rows: newRows });
      execFileSync("stty", ["-F", tty, "cols", String(newColumns), "rows", String(newRows)]);
    },
    waitFor(pattern, options = {}) {
      const from = options.from ?? 0;
      const find = () => {
        const text = output().slice(from);
        const i = typeof pattern === "string" ? text.indexOf(pattern) : text.search(pattern);
        return i < 0 ? -1 : from + i;
      };
      return waitUntil(find, String(pattern), options.timeoutMs ?? 10_000, () => output().slice(from));
    },
    waitForRaw(pattern, options = {}) {
      const from = options.from ?? 0;
      const find = () => raw.indexOf(pattern, from);
      return waitUntil(find, JSON.stringify(pattern), options.timeoutMs ?? 10_000, () =>
        output().slice(-2000),
      );
    },
    exited,
    kill: () => child.kill("SIGKILL"),
    goatPid,
  };
}
