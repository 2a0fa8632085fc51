/**
 * The spawn helper's own code: a small Node process that starts tool processes for its host, so the
 * host never forks itself (see `spawn-helper.ts` for why). It runs as `node -e` with this function's
 * source, so the function must be self-contained: it names nothing outside itself except what it is
 * given.
 *
 * Protocol, over the IPC channel (JSON), one request per process:
 * - host → helper: `{ id, file, args, cwd, env, stdio, fd3?, statusFd? }`, what `spawn` is given;
 * - helper → host, in this order: `{ id, pid }` with the stdout pipe as its handle, `{ id, stream:
 *   "stderr" }` with the stderr pipe, `{ id, init }` once the launcher's status fd names the sandbox's
 *   init, `{ id, exit: { code, signal } }`; or `{ id, error }` when the process could not start.
 * The pipes are handed over (SCM_RIGHTS) and closed here, so the host reads the command's output
 * straight from them and a helper that dies does not cut it. The helper exits when its channel closes,
 * killing the process groups of the commands still running: they do not outlive their host.
 */

/** One request, as the host sends it. */
export interface SpawnRequest {
  id: number;
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  stdio: Array<"ignore" | "pipe">;
  /** Base64 of the bytes to write to fd 3 (the seccomp program), then close it. */
  fd3?: string;
  /** The fd on which the launcher writes JSON status lines (`child-pid`: the sandbox's init). */
  statusFd?: number;
}

/** An error to start, as the helper reports it (what the host needs to rebuild Node's error). */
export interface SpawnFailure {
  message: string;
  code?: string;
  errno?: number;
  syscall?: string;
  path?: string;
}

type Send = (message: unknown, handle?: unknown) => void;

/** The helper's main function: `proc` is its `process`, `spawn` is `child_process.spawn`. */
export function spawnHelperMain(
  proc: NodeJS.Process,
  spawn: typeof import("node:child_process").spawn,
): void {
  const send: Send = (message, handle) => {
    try {
      proc.send?.(message, handle as never);
    } catch {
      // The host is gone; the disconnect handler ends this process.
    }
  };
  const describe = (error: NodeJS.ErrnoException) => ({
    message: error.message,
    code: error.code,
    errno: error.errno,
    syscall: error.syscall,
    path: error.path,
  });

  /** How often the channel is checked for a host that died mid-handover (see `hostGone`). */
  const HOST_CHECK_MS = 100;
  // The process groups of the commands running, each led by the command this process started.
  const running = new Set<number>();
  const start = (request: SpawnRequest) => {
    const { id } = request;
    let child: import("node:child_process").ChildProcess;
    try {
      child = spawn(request.file, request.args, {
        cwd: request.cwd,
        env: request.env,
        detached: true,
        stdio: request.stdio,
      });
    } catch (error) {
      send({ id, error: describe(error as NodeJS.ErrnoException) });
      return;
    }
    if (child.pid === undefined) {
      // Node reports the failure (ENOENT, EACCES…) as an event, after this tick.
      child.once("error", (error) => send({ id, error: describe(error) }));
      for (const stream of child.stdio) stream?.destroy();
      return;
    }
    child.on("error", () => {});
    const group = child.pid;
    running.add(group);
    child.once("exit", () => running.delete(group));
    // Node starts reading a child's pipes at once, and a handle waits in Node's queue until the host
    // acknowledged the one before it: whatever this process read meanwhile would be lost to the host.
    // So these pipes are never read here (`readStop` on the pipe handle, before the event loop runs).
    for (const pipe of [child.stdout, child.stderr] as Array<{
      _handle?: { readStop?: () => void };
    } | null>) {
      pipe?._handle?.readStop?.();
    }
    send({ id, pid: child.pid }, child.stdout);
    send({ id, stream: "stderr" }, child.stderr);
    if (request.fd3 !== undefined) {
      const fd3 = child.stdio[3] as import("node:stream").Writable | null;
      fd3?.on("error", () => {});
      fd3?.end(Buffer.from(request.fd3, "base64"));
    }
    if (request.statusFd !== undefined) {
      const status = child.stdio[request.statusFd] as import("node:stream").Readable | null;
      let text = "";
      let found = false;
      status?.setEncoding("utf8");
      status?.on("error", () => {});
      status?.on("data", (chunk: string) => {
        if (found) return;
        text += chunk;
        const match = /"child-pid"\s*:\s*(\d+)/.exec(text);
        if (match) {
          found = true;
          send({ id, init: Number(match[1]) });
        } else if (text.length > 4096) text = ""; // not the format we know: give up on it
      });
    }
    child.once("exit", (code, signal) => send({ id, exit: { code, signal } }));
  };

  proc.on("message", (request: SpawnRequest) => start(request));
  // The host is gone, however it ended (a SIGKILL included): its commands go with it, as a process
  // manager expects of a program's children, and a durable worker's takeover may say "interrupted".
  const hostGone = () => {
    for (const group of running) {
      try {
        proc.kill(-group, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    proc.exit(0);
  };
  proc.on("disconnect", hostGone);
  // Node defers `disconnect` while a pipe this process handed over waits for the host's
  // acknowledgement, and a host that died never acknowledges: the event would never come and the
  // commands would outlive their host. The channel's state is set at once, so it is also checked.
  setInterval(() => {
    if (!proc.connected) hostGone();
  }, HOST_CHECK_MS).unref();
  send({ ready: true });
}
