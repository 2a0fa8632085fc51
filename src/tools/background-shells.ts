/**
 * Background shells: commands started with `run_in_background`, kept in the session's tool state
 * (never a global), read incrementally by BashOutput, stopped by KillShell or when the session ends.
 * Each keeps a bounded buffer of unread output; when it overflows the oldest output is dropped and
 * the next read says how much.
 */
import { StringDecoder } from "node:string_decoder";
import type { ShellWrapper } from "../sandbox/bash-sandbox.js";
import { DEFAULT_MAX_OUTPUT_BYTES, describeByteCap } from "./command-output.js";
import type { ShellProcess } from "./helper-child.js";
import { isGroupAlive, killProcessGroup, spawnShell, untilSandboxGone, whenSpawned } from "./process-tree.js";
import type { ToolSessionState } from "./types.js";

/** Unread output a shell keeps, in characters, before dropping the oldest. */
const DEFAULT_SHELL_BUFFER_CHARS = 8 * 1024 * 1024;

/** Where a background shell is in its life. */
type ShellStatus = "running" | "completed" | "failed" | "killed";

/** A background shell. Plain data; change it only through this module's functions. */
export interface BackgroundShell {
  readonly kind: "background-shell";
  readonly id: string;
  readonly command: string;
  readonly description?: string;
  readonly cwd: string;
  /**
   * Process group id (the shell's pid); undefined while the spawn helper has not answered yet, or if
   * it could not be started.
   */
  pgid: number | undefined;
  readonly startedAt: number;
  status: ShellStatus;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  endedAt?: number;
  /** Why it failed to start, or that it hit its timeout. */
  note?: string;
  /** Output not yet returned by a read, oldest first. */
  unread: string[];
  unreadChars: number;
  /** Characters dropped from `unread` since the last read because the buffer was full. */
  droppedChars: number;
  totalChars: number;
  readonly maxBufferChars: number;
  /** Resolves when the shell has exited and its output is closed. */
  readonly done: Promise<void>;
}

/** What `startBackgroundShell` needs. */
export interface StartShellOptions {
  command: string;
  cwd: string;
  /** The command's environment; default `process.env`. */
  env?: Record<string, string | undefined>;
  description?: string;
  /** Kill the shell after this long; no limit when absent. */
  timeoutMs?: number;
  maxBufferChars?: number;
  /** Bytes of output after which the shell is stopped (default `DEFAULT_MAX_OUTPUT_BYTES`). */
  maxOutputBytes?: number;
  /** Runs the shell inside this (the sandbox). */
  wrap?: ShellWrapper;
}

/** Starts `command` in the background and records it in `state`. Returns at once. */
export function startBackgroundShell(state: ToolSessionState, opts: StartShellOptions): BackgroundShell {
  const child = spawnShell(opts.command, opts.cwd, opts.env, opts.wrap);
  return adoptBackgroundShell(state, child, opts);
}

/**
 * Records an already running shell (a foreground command the host moved to the background) as a
 * background shell of `state`, its output so far first in the unread buffer. The child's output must
 * have no other reader from now on.
 */
export function adoptBackgroundShell(
  state: ToolSessionState,
  child: ShellProcess,
  opts: Omit<StartShellOptions, "env" | "wrap"> & {
    outputSoFar?: string;
    /** How the shell exited, when it did before it was adopted (its output may still be coming). */
    exited?: { code: number | null; signal: NodeJS.Signals | null };
  },
): BackgroundShell {
  let markDone!: () => void;
  const shell: BackgroundShell = {
    kind: "background-shell",
    id: nextShellId(state),
    command: opts.command,
    description: opts.description,
    cwd: opts.cwd,
    pgid: child.pid,
    startedAt: Date.now(),
    status: "running",
    exitCode: null,
    signal: null,
    unread: [],
    unreadChars: 0,
    droppedChars: 0,
    totalChars: 0,
    maxBufferChars: opts.maxBufferChars ?? DEFAULT_SHELL_BUFFER_CHARS,
    done: new Promise<void>((resolve) => {
      markDone = resolve;
    }),
  };
  state.backgroundShells.set(shell.id, shell);
  const started = whenSpawned(child).then((pid) => {
    shell.pgid = pid;
    return pid;
  });
  startedShells.set(shell, started);
  state.cleanups.push(() => killBackgroundShell(shell));
  if (opts.outputSoFar) appendOutput(shell, opts.outputSoFar);
  if (opts.exited) {
    shell.exitCode = opts.exited.code;
    shell.signal = opts.exited.signal;
    shell.endedAt = Date.now();
    shell.status = opts.exited.code === 0 ? "completed" : "failed";
  }

  const decoder = new StringDecoder("utf8");
  const maxBytes = opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  let bytes = 0;
  const onData = (chunk: Buffer) => {
    appendOutput(shell, decoder.write(chunk));
    bytes += chunk.length;
    // The buffer drops old output, so memory is bounded; the cap bounds the work (and BashOutput's
    // spill files) of a shell that floods forever.
    if (bytes > maxBytes && shell.status === "running") {
      shell.note = `output exceeded ${describeByteCap(maxBytes)}; the command was stopped`;
      void killBackgroundShell(shell);
    }
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  child.on("error", (err) => {
    shell.status = "failed";
    shell.note = `could not start: ${err.message}`;
    shell.endedAt = Date.now();
    markDone();
  });
  child.on("exit", (code, sig) => {
    shell.exitCode = code;
    shell.signal = sig;
    shell.endedAt = Date.now();
    if (shell.status === "running") shell.status = code === 0 ? "completed" : "failed";
  });
  child.on("close", () => {
    appendOutput(shell, decoder.end());
    // In the sandbox, what the shell left is still being killed when its launcher exits.
    void untilSandboxGone(child).then(markDone);
  });

  if (opts.timeoutMs !== undefined) {
    const timer = setTimeout(() => {
      if (shell.status !== "running") return;
      shell.note = `stopped after its ${opts.timeoutMs} ms timeout`;
      void killBackgroundShell(shell);
    }, opts.timeoutMs);
    void shell.done.then(() => clearTimeout(timer));
  }
  return shell;
}

/** Each shell's pid as the spawn helper announces it (undefined: it could not start). */
const startedShells = new WeakMap<BackgroundShell, Promise<number | undefined>>();

/** The shell with this id in `state`, if any. */
export function getBackgroundShell(state: ToolSessionState, id: string): BackgroundShell | undefined {
  const shell = state.backgroundShells.get(id);
  return isBackgroundShell(shell) ? shell : undefined;
}

/** All background shells of the session, oldest first. */
export function listBackgroundShells(state: ToolSessionState): BackgroundShell[] {
  return [...state.backgroundShells.values()].filter(isBackgroundShell);
}

/** What one read of a shell returns. */
export interface ShellRead {
  text: string;
  /** Characters lost since the previous read because the buffer was full. */
  droppedChars: number;
}

/**
 * Returns the output since the last read and marks it read. With `wholeLines` (a filtered read), while
 * the shell runs a trailing partial line is kept for the next read, so a line is never judged before
 * it is complete.
 */
export function readShellOutput(shell: BackgroundShell, wholeLines = false): ShellRead {
  let text = shell.unread.join("");
  const droppedChars = shell.droppedChars;
  shell.unread = [];
  shell.unreadChars = 0;
  shell.droppedChars = 0;
  if (wholeLines && shell.status === "running") {
    const cut = text.lastIndexOf("\n") + 1;
    if (cut < text.length) {
      shell.unread = [text.slice(cut)];
      shell.unreadChars = text.length - cut;
      text = text.slice(0, cut);
    }
  }
  return { text, droppedChars };
}

/** Puts a read's text back in front of the unread output (a filtered read that failed consumes nothing). */
export function unreadShellOutput(shell: BackgroundShell, read: ShellRead): void {
  if (read.text !== "") {
    shell.unread.unshift(read.text);
    shell.unreadChars += read.text.length;
  }
  shell.droppedChars += read.droppedChars;
}

/**
 * Kills the shell's whole process group (including processes it left running after it exited) and
 * waits for it to end. Marks a running shell `killed`. Never rejects.
 */
export async function killBackgroundShell(shell: BackgroundShell): Promise<void> {
  // A shell whose pid the spawn helper has not sent yet is killed once it is known.
  const pgid = shell.pgid ?? (shell.status === "running" ? await startedShells.get(shell) : undefined);
  if (pgid === undefined) return;
  if (shell.status === "running") {
    shell.status = "killed";
    shell.endedAt = Date.now();
  }
  if (isGroupAlive(pgid)) await killProcessGroup(pgid);
  // Output still held by a process outside the group must not make the caller wait forever.
  await Promise.race([shell.done, new Promise((resolve) => setTimeout(resolve, 500).unref())]);
}

/** One line describing a shell's state, e.g. `completed (exit code 0)`. */
export function describeShellStatus(shell: BackgroundShell): string {
  switch (shell.status) {
    case "running":
      return "running";
    case "killed":
      return shell.note ? `killed (${shell.note})` : "killed";
    default: {
      if (shell.note && shell.exitCode === null) return `${shell.status} (${shell.note})`;
      const how = shell.signal ? `signal ${shell.signal}` : `exit code ${shell.exitCode}`;
      return `${shell.status} (${how})`;
    }
  }
}

function appendOutput(shell: BackgroundShell, text: string): void {
  if (text === "") return;
  shell.totalChars += text.length;
  shell.unread.push(text);
  shell.unreadChars += text.length;
  while (shell.unreadChars > shell.maxBufferChars) {
    const excess = shell.unreadChars - shell.maxBufferChars;
    const oldest = shell.unread[0];
    if (oldest.length <= excess) {
      shell.unread.shift();
      shell.unreadChars -= oldest.length;
      shell.droppedChars += oldest.length;
    } else {
      shell.unread[0] = oldest.slice(excess);
      shell.unreadChars -= excess;
      shell.droppedChars += excess;
    }
  }
}

function nextShellId(state: ToolSessionState): string {
  let n = state.backgroundShells.size + 1;
  while (state.backgroundShells.has(`bash_${n}`)) n++;
  return `bash_${n}`;
}

function isBackgroundShell(value: unknown): value is BackgroundShell {
  return (
    typeof value === "object" && value !== null && (value as BackgroundShell).kind === "background-shell"
  );
}
