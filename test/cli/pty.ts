/**
 * Drives `goat` in a real pseudo-terminal through util-linux `script`: spawn it, type into it, wait
 * for text on its screen output, collect its exit status.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import xterm from "@xterm/headless";
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

/** Starts `node dist/bin/goat.js args…` in a pty. */
export function startPty(
  args: string[],
  env: Record<string, string>,
  cwd: string,
  options: { term?: string } = {},
): PtySession {
  const command = ["node", CLI, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  const child: ChildProcess = spawn("script", ["-qfec", command, "/dev/null"], {
    env: { ...env, TERM: options.term ?? "xterm", COLUMNS: String(COLUMNS), LINES: String(ROWS) },
    cwd,
    stdio: ["pipe", "pipe", "pipe"],
  });
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
  return {
    output,
    raw: () => raw,
    screen: () =>
      new Promise((resolve) => {
        const term = new xterm.Terminal({
          cols: COLUMNS,
          rows: ROWS,
          scrollback: 10_000,
          allowProposedApi: true,
        });
        term.write(raw, () => {
          const buffer = term.buffer.active;
          const lines: string[] = [];
          for (let i = 0; i < buffer.length; i++)
            lines.push(buffer.getLine(i)?.translateToString(true) ?? "");
          term.dispose();
          resolve(lines.join("\n").replace(/\n+$/, ""));
        });
      }),
    type: (text) => child.stdin?.write(text),
    waitFor(pattern, options = {}) {
      const from = options.from ?? 0;
      const find = () => {
        const text = output().slice(from);
        const i = typeof pattern === "string" ? text.indexOf(pattern) : text.search(pattern);
        return i < 0 ? -1 : from + i;
      };
      return new Promise((resolve, reject) => {
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
          reject(new Error(`timed out waiting for ${pattern}; screen so far:\n${output().slice(from)}`));
        }, options.timeoutMs ?? 10_000);
        listeners.add(check);
        check();
      });
    },
    exited,
    kill: () => child.kill("SIGKILL"),
    goatPid: () => findDescendant(child.pid, CLI),
  };
}

/** The first process under `root` (children, then theirs) whose command line mentions `needle`. */
function findDescendant(root: number | undefined, needle: string): number | undefined {
  const queue = root === undefined ? [] : [root];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    let children: number[] = [];
    try {
      children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map(Number);
    } catch {
      continue;
    }
    for (const c of children) {
      try {
        if (readFileSync(`/proc/${c}/cmdline`, "utf8").includes(needle)) return c;
      } catch {
        // gone already
      }
      queue.push(c);
    }
  }
  return undefined;
}
