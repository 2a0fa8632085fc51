/**
 * Runs one settings-file command hook as a real process, the way Claude Code does: `sh -c` in the
 * session's working directory, the event JSON on stdin, the project directory in the environment.
 * The process gets its own process group so a timeout or an abort kills everything it started.
 */
import { spawn } from "node:child_process";
import { trackChildGroup } from "../tools/process-tree.js";

/** How a command hook process ended. */
export interface CommandRunResult {
  /** null when killed by a signal (including our own timeout or abort). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  /** Set when the process could not be started at all. */
  spawnError?: string;
}

/** Options for `runCommandHook`. */
export interface CommandRunOptions {
  cwd: string;
  /** Exported as GOAT_PROJECT_DIR and CLAUDE_PROJECT_DIR. */
  projectDir: string;
  timeoutMs: number;
  signal: AbortSignal;
  /** The hook's environment (the session's `env`); default `process.env`. */
  env?: Record<string, string | undefined>;
}

/** Output kept per stream; a hook that floods stdout must not grow memory without bound. */
const MAX_CAPTURE = 1024 * 1024;

/** After the shell exits, how long to wait for pipes held open by a backgrounded grandchild. */
const PIPE_GRACE_MS = 200;

/**
 * Runs `command` with `stdinJson` on stdin. Never rejects: every failure is described in the result.
 * On timeout or abort the whole process group is killed with SIGKILL.
 */
export function runCommandHook(
  command: string,
  stdinJson: string,
  options: CommandRunOptions,
): Promise<CommandRunResult> {
  return new Promise((resolve) => {
    const result: CommandRunResult = {
      exitCode: null,
      stdout: "",
      stderr: "",
      timedOut: false,
      aborted: false,
    };
    if (options.signal.aborted) {
      resolve({ ...result, aborted: true });
      return;
    }
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;
    const child = spawn("sh", ["-c", command], {
      cwd: options.cwd,
      env: {
        ...(options.env ?? process.env),
        GOAT_PROJECT_DIR: options.projectDir,
        CLAUDE_PROJECT_DIR: options.projectDir,
      },
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    trackChildGroup(child);
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // ESRCH: the group is already gone, which is what we wanted.
      }
    };
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      options.signal.removeEventListener("abort", onAbort);
      child.stdout.destroy();
      child.stderr.destroy();
      resolve(result);
    };
    const onAbort = () => {
      result.aborted = true;
      killGroup();
    };
    const timer = setTimeout(() => {
      result.timedOut = true;
      killGroup();
    }, options.timeoutMs);
    options.signal.addEventListener("abort", onAbort, { once: true });

    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      if (result.stdout.length < MAX_CAPTURE) result.stdout += chunk;
    });
    child.stderr.on("data", (chunk: string) => {
      if (result.stderr.length < MAX_CAPTURE) result.stderr += chunk;
    });
    // A hook that never reads stdin closes the pipe early: EPIPE is expected, not a failure.
    child.stdin.on("error", () => {});
    child.stdin.end(stdinJson);

    child.on("error", (err) => {
      result.spawnError = err.message;
      finish();
    });
    child.on("exit", (code) => {
      result.exitCode = code;
      // If the shell's children already ended, 'close' follows at once. A backgrounded grandchild
      // that inherited the pipes is left running (it may be deliberate), but must not hold the run.
      graceTimer = setTimeout(finish, PIPE_GRACE_MS);
    });
    child.on("close", finish);
  });
}
