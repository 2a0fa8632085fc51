/**
 * Runs one foreground shell command to completion: output collected within the model's limit,
 * progress streamed, and the whole process group killed on timeout, on abort, or when the command
 * exits but leaves processes behind that still hold its output open.
 */

import type { ShellWrapper } from "../sandbox/bash-sandbox.js";
import { type CollectedOutput, createOutputCollector, MAX_OUTPUT_CHARS } from "./command-output.js";
import type { ShellProcess } from "./helper-child.js";
import { isGroupAlive, killProcessGroup, spawnShell, untilSandboxGone } from "./process-tree.js";

/** After the shell exits, how long processes it left behind may keep its output open. */
const STRAY_GRACE_MS = 500;
/** After an abort, how long we wait for the group to die before returning anyway. */
const ABORT_RETURN_MS = 250;
/** Minimum gap between two progress updates. */
const PROGRESS_INTERVAL_MS = 200;
/** Largest progress update; a flood is shown by its latest output. */
const PROGRESS_MAX_CHARS = 4000;

/** What `runCommand` needs. */
export interface RunCommandOptions {
  command: string;
  cwd: string;
  /** The command's environment; default `process.env`. */
  env?: Record<string, string | undefined>;
  timeoutMs: number;
  signal: AbortSignal;
  /** Where the whole output goes if it passes the inline limit (called at most once). */
  spillPath: () => string;
  /** Bytes of output after which the command is stopped (default `DEFAULT_MAX_OUTPUT_BYTES`). */
  maxOutputBytes?: number;
  /** Receives new output, throttled. */
  onOutput?: (text: string) => void;
  /** Runs the shell inside this (the sandbox). */
  wrap?: ShellWrapper;
  /**
   * Aborting it moves the running command to the background (the host's `backgroundTasks`): `adopt`
   * takes the live process and the output so far and returns the background shell's id, and the
   * command's outcome reports that id at once.
   */
  moveToBackground?: AbortSignal;
  adopt?: (
    child: ShellProcess,
    outputSoFar: string,
    exited: { code: number | null; signal: NodeJS.Signals | null } | undefined,
  ) => string;
}

/** How a foreground command ended. */
export interface CommandOutcome {
  output: CollectedOutput;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  interrupted: boolean;
  /** The output passed `maxOutputBytes`, so the command's process group was killed. */
  outputCapped: boolean;
  /** The shell exited but left processes holding its output open; they were killed. */
  strayProcessesKilled: boolean;
  /** The shell could not be started. */
  spawnError?: string;
  durationMs: number;
  /** Set when the command was moved to the background while it ran: the background shell's id. */
  backgroundShellId?: string;
}

/** Runs `command` and resolves when it (and its process group) is done. Never rejects. */
export function runCommand(opts: RunCommandOptions): Promise<CommandOutcome> {
  const started = Date.now();
  const collector = createOutputCollector(opts.spillPath, MAX_OUTPUT_CHARS, opts.maxOutputBytes);
  const progress = throttle(opts.onOutput);
  const outcome = {
    exitCode: null as number | null,
    signal: null as NodeJS.Signals | null,
    timedOut: false,
    interrupted: false,
    outputCapped: false,
    strayProcessesKilled: false,
    spawnError: undefined as string | undefined,
  };

  return new Promise((resolve) => {
    if (opts.signal.aborted) {
      outcome.interrupted = true;
      resolve({ ...outcome, output: collector.finish(), durationMs: 0 });
      return;
    }
    const child = spawnShell(opts.command, opts.cwd, opts.env, opts.wrap);
    // Through the spawn helper the pid arrives a moment later, announced by `spawn`.
    let pgid = child.pid;
    /** A stop asked before the pid was known: done at `spawn`. */
    let stopOnSpawn = false;
    let finished = false;
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    const timers: NodeJS.Timeout[] = [];

    const finish = () => {
      if (finished) return;
      finished = true;
      for (const t of timers) clearTimeout(t);
      opts.signal.removeEventListener("abort", onAbort);
      opts.moveToBackground?.removeEventListener("abort", onBackground);
      progress.flush();
      // Anything still writing after this gets EPIPE; the group is being killed anyway.
      child.stdout?.destroy();
      child.stderr?.destroy();
      const output = collector.finish();
      // In the sandbox, what the command left is still being killed when its launcher exits.
      void untilSandboxGone(child).then(() =>
        resolve({ ...outcome, output, durationMs: Date.now() - started }),
      );
    };
    /** Finishes when the pipes close, or after `ms` whatever happens. */
    const finishWithin = (ms: number) => {
      timers.push(setTimeout(finish, ms));
    };
    const stopGroup = async (returnWithinMs?: number) => {
      if (returnWithinMs !== undefined) finishWithin(returnWithinMs);
      if (pgid === undefined) {
        // Not started yet: kill it once its pid is known; it could not start: nothing to kill.
        if (outcome.spawnError !== undefined) return finish();
        stopOnSpawn = true;
        return;
      }
      await killProcessGroup(pgid);
      // The group is gone; wait a little for the last bytes, then give up on pipes held elsewhere.
      finishWithin(300);
    };

    const onData = (chunk: Buffer) => {
      if (finished) return;
      progress.push(collector.push(chunk));
      // A flood (`yes`, `seq inf`) is stopped like a timeout, not saved until the disk is full.
      if (collector.overCap && !outcome.outputCapped) {
        outcome.outputCapped = true;
        void stopGroup();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);

    child.once("spawn", () => {
      pgid = child.pid;
      if (!stopOnSpawn || pgid === undefined) return;
      // The call may have returned already (an abort answers within ABORT_RETURN_MS): kill regardless.
      if (finished) void killProcessGroup(pgid);
      else void stopGroup();
    });
    child.on("error", (err) => {
      outcome.spawnError = err.message;
      finish();
    });
    child.on("exit", (code, sig) => {
      outcome.exitCode = code;
      outcome.signal = sig;
      exited = { code, signal: sig };
      if (finished) return;
      // Processes the command put in the background keep our pipes open; stop them rather than
      // hang until the timeout (run_in_background is the tool for long-lived processes).
      timers.push(
        setTimeout(() => {
          if (finished || pgid === undefined) return;
          outcome.strayProcessesKilled = isGroupAlive(pgid);
          void stopGroup();
        }, STRAY_GRACE_MS),
      );
    });
    child.on("close", finish);

    const onAbort = () => {
      if (finished) return;
      outcome.interrupted = true;
      void stopGroup(ABORT_RETURN_MS);
    };
    opts.signal.addEventListener("abort", onAbort, { once: true });

    // The host moved the command to the background: hand the live process over, answer at once.
    const onBackground = () => {
      if (finished || !opts.adopt || outcome.spawnError !== undefined) return;
      finished = true;
      for (const t of timers) clearTimeout(t);
      opts.signal.removeEventListener("abort", onAbort);
      progress.flush();
      child.stdout?.off("data", onData);
      child.stderr?.off("data", onData);
      child.off("close", finish);
      const output = collector.finish();
      const backgroundShellId = opts.adopt(child, output.text, exited);
      resolve({ ...outcome, output, backgroundShellId, durationMs: Date.now() - started });
    };
    opts.moveToBackground?.addEventListener("abort", onBackground, { once: true });
    timers.push(
      setTimeout(() => {
        if (finished) return;
        outcome.timedOut = true;
        void stopGroup();
      }, opts.timeoutMs),
    );
  });
}

interface Throttle {
  push(text: string): void;
  flush(): void;
}

/** Batches output for `onOutput` so a chatty command sends a few updates a second, not thousands. */
function throttle(onOutput: ((text: string) => void) | undefined): Throttle {
  if (!onOutput) return { push() {}, flush() {} };
  let pending = "";
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending === "") return;
    const text = pending;
    pending = "";
    try {
      onOutput(text);
    } catch {
      // A failing progress listener must not break the command it is watching.
    }
  };
  return {
    push(text) {
      if (text === "") return;
      pending += text;
      if (pending.length > PROGRESS_MAX_CHARS * 2) pending = pending.slice(-PROGRESS_MAX_CHARS);
      timer ??= setTimeout(flush, PROGRESS_INTERVAL_MS);
    },
    flush,
  };
}
