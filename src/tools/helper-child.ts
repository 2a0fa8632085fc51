/**
 * The host's side of one process the spawn helper started: shaped like Node's `ChildProcess` for
 * what the Bash tool uses (`pid`, `stdout`, `stderr`, and the `spawn`, `exit`, `close` and `error`
 * events, in Node's order), so the callers treat both alike. One difference: `pid` is known when the
 * helper answers, announced by `spawn`, not when the request is made.
 *
 * stdout and stderr exist at once; the helper's pipes are joined to them when they arrive. `close`
 * comes after `exit` and the end of both pipes, as Node's does (whether or not anyone read them).
 */
import type { ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import type { Socket } from "node:net";
import { PassThrough, type Readable } from "node:stream";
import type { SpawnFailure } from "./spawn-helper-main.js";

type ExitListener = (code: number | null, signal: NodeJS.Signals | null) => void;

/**
 * A started (or starting) tool process: Node's `ChildProcess`, or the spawn helper's stand-in. Its
 * events are Node's, plus `sandbox-init` (the pid of the sandbox's init, from the launcher's status).
 */
export interface ShellProcess {
  readonly pid?: number | undefined;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  on(event: "spawn", listener: () => void): this;
  on(event: "exit" | "close", listener: ExitListener): this;
  on(event: "error", listener: (error: Error) => void): this;
  on(event: "sandbox-init", listener: (pid: number) => void): this;
  once(event: "spawn", listener: () => void): this;
  once(event: "exit" | "close", listener: ExitListener): this;
  once(event: "error", listener: (error: Error) => void): this;
  once(event: "sandbox-init", listener: (pid: number) => void): this;
  // Removes any of the listeners above, whatever their arguments.
  off(event: string, listener: (...args: any[]) => void): this;
  emit(event: string, ...args: unknown[]): boolean;
}

/** A process the helper is starting or started; see the module comment. */
export class HelperChild extends EventEmitter {
  pid: number | undefined = undefined;
  readonly stdout: Readable = new PassThrough();
  readonly stderr: Readable = new PassThrough();
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** Pipes not yet at their end (or not yet arrived): `close` waits for them, as Node's waits for its pipes. */
  private openPipes = 2;
  /** Pipes that arrived (or will never come). */
  private joinedPipes = 0;
  private closed = false;

  /** The helper started the process: its pid (the process group) and its stdout pipe. */
  started(pid: number, stdout: Socket | undefined): void {
    this.pid = pid;
    this.join(stdout, this.stdout);
    this.emit("spawn");
  }

  /** The stderr pipe arrived. */
  stderrArrived(stderr: Socket | undefined): void {
    this.join(stderr, this.stderr);
  }

  /** The process exited (or, with `signal`, was killed). */
  exited(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exit) return;
    this.exit = { code, signal };
    this.emit("exit", code, signal);
    this.closeIfDone();
  }

  /** The process could not start: `error`, then `close` with the errno, as Node does. */
  failed(failure: SpawnFailure): void {
    if (this.exit) return;
    const error = Object.assign(new Error(failure.message), {
      code: failure.code,
      errno: failure.errno,
      syscall: failure.syscall,
      path: failure.path,
    });
    this.exit = { code: failure.errno ?? null, signal: null };
    this.emit("error", error);
    this.stdout.destroy();
    this.stderr.destroy();
    this.noMorePipes();
  }

  /** The helper is gone: a process not started yet fails; a running one ends when its group does. */
  helperLost(): void {
    if (this.exit) return;
    const pgid = this.pid;
    if (pgid === undefined) {
      this.failed({ message: "The spawn helper exited before it started the process." });
      return;
    }
    // Its exit status went with the helper; its end is seen from its group.
    this.noMorePipes();
    const poll = setInterval(() => {
      try {
        process.kill(-pgid, 0);
      } catch {
        clearInterval(poll);
        this.exited(null, null);
      }
    }, 50);
  }

  /** Takes over a process started directly (the helper could not start it). */
  adoptDirect(child: ChildProcess): void {
    child.on("error", (error) => {
      if (this.exit) return;
      this.exit = { code: (error as NodeJS.ErrnoException).errno ?? null, signal: null };
      this.emit("error", error);
    });
    child.once("exit", (code, signal) => this.exited(code, signal));
    child.on("sandbox-init", (pid: number) => this.emit("sandbox-init", pid));
    this.join(child.stdout as Socket | null, this.stdout);
    this.join(child.stderr as Socket | null, this.stderr);
    if (child.pid !== undefined) {
      this.pid = child.pid;
      this.emit("spawn");
    }
  }

  /** Feeds `target` from a pipe; a reader that stops (destroys `target`) closes the pipe, so writers get EPIPE. */
  private join(source: Socket | Readable | null | undefined, target: Readable): void {
    this.joinedPipes++;
    if (!source) {
      target.destroy();
      this.pipeEnded();
      return;
    }
    source.once("close", () => this.pipeEnded());
    if (target.destroyed) {
      source.destroy();
      return;
    }
    source.on("error", () => target.destroy());
    source.pipe(target as PassThrough);
    target.once("close", () => source.destroy());
  }

  /** Pipes that have not arrived never will (the helper is gone, or nothing started). */
  private noMorePipes(): void {
    const missing = 2 - this.joinedPipes;
    this.joinedPipes = 2;
    for (let i = 0; i < missing; i++) this.pipeEnded();
  }

  private pipeEnded(): void {
    this.openPipes--;
    this.closeIfDone();
  }

  private closeIfDone(): void {
    if (this.closed || !this.exit || this.openPipes > 0) return;
    this.closed = true;
    this.emit("close", this.exit.code, this.exit.signal);
  }
}
