/**
 * Starting tool processes without forking the host. `spawn()` forks the calling process, and fork
 * copies the caller's page tables: from a host of 1.5 GB resident memory one Bash call blocked the
 * event loop about 100 ms (every session of a server stalls with it), from 50 MB a few ms
 * (`bench/spawn-block.mjs`). So the host starts one small Node process, the spawn helper
 * (`spawn-helper-main.ts`), on its first tool process and asks it to start the rest: the helper's
 * forks copy its own ~40 MB, and the host only writes a message. The helper hands back the process's
 * pipes, so output is read straight from the command, and reports its pid and exit.
 *
 * The helper is unref'd (it never keeps the host alive; its channel is ref'd only while a process it
 * started is running), restarted when it dies (up to `MAX_STARTS` times), and skipped where it cannot
 * be used: on Windows, with `GOAT_SPAWN_HELPER=0`, or when it failed to start. Then `spawn()` runs
 * here directly, as before.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { Socket } from "node:net";
import type { Readable, Writable } from "node:stream";
import { HelperChild, type ShellProcess } from "./helper-child.js";
import { type SpawnFailure, type SpawnRequest, spawnHelperMain } from "./spawn-helper-main.js";

/** A detached process to start: the program, its arguments, and extra fds beyond stdio. */
export interface DetachedLaunch {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string | undefined>;
  /** Bytes written to the process's fd 3, which is then closed (the sandbox's seccomp program). */
  fd3?: Buffer;
  /** An fd on which the process writes JSON status lines; `child-pid` becomes the `sandbox-init` event. */
  statusFd?: number;
}

/** Starts of the helper allowed per host process; after that, processes are spawned directly. */
const MAX_STARTS = 3;
/** How long a new helper may take to say it is ready before the host stops waiting for it. */
const READY_TIMEOUT_MS = 10_000;

const HELPER_SOURCE = `"use strict";
(${spawnHelperMain.toString()})(process, require("node:child_process").spawn);`;

interface Helper {
  process: ChildProcess;
  ready: boolean;
  /** Processes asked for and not yet exited, by request id. */
  children: Map<number, { child: HelperChild; request: SpawnRequest; launch: DetachedLaunch }>;
}

let helper: Helper | undefined;
let starts = 0;
let unavailable = false;
let nextId = 0;

/**
 * Starts `launch` detached (the leader of a new process group), stdin closed, stdout and stderr
 * piped, through the spawn helper when it can be used. Listen for `spawn` before reading `pid`.
 */
export function spawnDetached(launch: DetachedLaunch): ShellProcess {
  let current = usableHelper();
  if (current && !current.process.connected) {
    // It died and the host has not heard yet: nothing sent now could reach it.
    helperGone(current);
    current = usableHelper();
  }
  if (!current) return spawnDirect(launch);
  const child = new HelperChild();
  const request: SpawnRequest = {
    id: ++nextId,
    file: launch.file,
    args: [...launch.args],
    cwd: launch.cwd,
    env: launch.env,
    stdio: stdioFor(launch),
    ...(launch.fd3 ? { fd3: launch.fd3.toString("base64") } : {}),
    ...(launch.statusFd !== undefined ? { statusFd: launch.statusFd } : {}),
  };
  current.children.set(request.id, { child, request, launch });
  current.process.channel?.ref();
  current.process.send(request);
  return child;
}

/** Node's `spawn`, here in the host, with the fd 3 program written and the status fd watched. */
function spawnDirect(launch: DetachedLaunch): ChildProcess {
  const child = spawn(launch.file, [...launch.args], {
    cwd: launch.cwd,
    detached: true,
    stdio: stdioFor(launch),
    env: launch.env,
  });
  const fd3 = child.stdio[3] as Writable | null | undefined;
  if (launch.fd3 && fd3) {
    // The launcher reads this before starting the command; if it died first the write fails, and
    // its exit reports why.
    fd3.on("error", () => {});
    fd3.end(launch.fd3);
  }
  if (launch.statusFd !== undefined) watchStatus(child, child.stdio[launch.statusFd] as Readable | null);
  return child;
}

function stdioFor(launch: DetachedLaunch): Array<"ignore" | "pipe"> {
  const stdio: Array<"ignore" | "pipe"> = ["ignore", "pipe", "pipe"];
  if (launch.fd3) stdio[3] = "pipe";
  if (launch.statusFd !== undefined) {
    for (let fd = stdio.length; fd < launch.statusFd; fd++) stdio[fd] = "ignore";
    stdio[launch.statusFd] = "pipe";
  }
  return stdio;
}

/** Emits `sandbox-init` with the pid the launcher's first `child-pid` status line names. */
function watchStatus(child: ChildProcess, status: Readable | null): void {
  if (!status) return;
  let text = "";
  let found = false;
  status.setEncoding("utf8");
  status.on("data", (chunk: string) => {
    if (found) return;
    text += chunk;
    const match = /"child-pid"\s*:\s*(\d+)/.exec(text);
    if (match) {
      found = true;
      child.emit("sandbox-init", Number(match[1]));
    } else if (text.length > 4096) text = ""; // not the format we know: give up on it
  });
  status.on("error", () => {});
}

/** The running helper, started if need be; undefined when processes must be spawned directly. */
function usableHelper(): Helper | undefined {
  if (helper) return helper;
  if (unavailable || starts >= MAX_STARTS || process.platform === "win32") return undefined;
  if (process.env.GOAT_SPAWN_HELPER === "0") return undefined;
  starts++;
  try {
    helper = startHelper();
  } catch {
    unavailable = true;
    return undefined;
  }
  return helper;
}

function startHelper(): Helper {
  // Node's own flags and NODE_OPTIONS are the host's (an inspector port, a loader); the helper needs none.
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, ["-e", HELPER_SOURCE], {
    stdio: ["ignore", "ignore", "ignore", "ipc"],
    env,
    serialization: "json",
  });
  const started: Helper = { process: child, ready: false, children: new Map() };
  child.unref();
  child.channel?.unref();
  const readyTimer = setTimeout(() => {
    if (!started.ready) child.kill("SIGKILL");
  }, READY_TIMEOUT_MS);
  readyTimer.unref();
  child.on("message", (message: HelperMessage, handle?: Socket) => onMessage(started, message, handle));
  child.on("error", () => helperGone(started));
  child.on("exit", () => helperGone(started));
  child.on("disconnect", () => helperGone(started));
  return started;
}

type HelperMessage =
  | { ready: true }
  | { id: number; pid: number }
  | { id: number; stream: "stderr" }
  | { id: number; init: number }
  | { id: number; exit: { code: number | null; signal: NodeJS.Signals | null } }
  | { id: number; error: SpawnFailure };

function onMessage(owner: Helper, message: HelperMessage, handle: Socket | undefined): void {
  if ("ready" in message) {
    owner.ready = true;
    return;
  }
  const entry = owner.children.get(message.id);
  if (!entry) {
    handle?.destroy();
    return;
  }
  const { child } = entry;
  if ("pid" in message) child.started(message.pid, handle);
  else if ("stream" in message) child.stderrArrived(handle);
  else if ("init" in message) child.emit("sandbox-init", message.init);
  else {
    if ("exit" in message) child.exited(message.exit.code, message.exit.signal);
    else child.failed(message.error);
    owner.children.delete(message.id);
    if (owner.children.size === 0) owner.process.channel?.unref();
  }
}

/**
 * The helper died or could not start. Processes it never got to are started directly (a helper that
 * was never ready read no request); the others are told (`HelperChild.helperLost`). The next request
 * starts a new helper, unless this one never became ready: then the host spawns directly from now on.
 */
function helperGone(owner: Helper): void {
  if (helper !== owner) return;
  helper = undefined;
  if (!owner.ready) unavailable = true;
  for (const { child, launch } of owner.children.values()) {
    if (!owner.ready) child.adoptDirect(spawnDirect(launch));
    else child.helperLost();
  }
  owner.children.clear();
}

/**
 * Starts the helper now, while the host is small: a host that will grow (a durable worker holding many
 * sessions) calls it at start, so that even the first tool process does not pay a fork of the big host.
 */
export function prestartSpawnHelper(): void {
  usableHelper();
}

/** For tests: the helper's pid, when one is running. */
export function spawnHelperPid(): number | undefined {
  return helper?.process.pid;
}
