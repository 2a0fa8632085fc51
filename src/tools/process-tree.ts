/**
 * Spawning a shell command as the leader of its own process group, and killing that whole group
 * (the command, its children and grandchildren) so a timed-out or interrupted command leaves no orphans.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { ShellWrapper } from "../sandbox/bash-sandbox.js";
import type { ShellProcess } from "./helper-child.js";
import { spawnDetached } from "./spawn-helper.js";

/** How long a group gets between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 1500;

/**
 * The process groups this process started whose end it has not yet seen. Process-wide on purpose,
 * unlike all session state: the groups are OS processes of this process, and a program that is being
 * terminated (SIGTERM, SIGHUP) must find every one of them, whichever session started it.
 */
const liveGroups = new Set<number>();

/**
 * Records the process group a detached child leads, so `killTrackedGroups` finds it; forgotten once
 * the child closed and nothing of its group runs any more (or when `killProcessGroup` ended it). A
 * child the spawn helper starts has its pid only at `spawn`; it is recorded then.
 */
export function trackChildGroup(child: ShellProcess): void {
  const track = (pgid: number) => {
    liveGroups.add(pgid);
    child.once("close", () => forgetGroupIfGone(pgid));
  };
  if (child.pid !== undefined) track(child.pid);
  else
    child.once("spawn", () => {
      if (child.pid !== undefined) track(child.pid);
    });
}

/**
 * The child's pid (its process group) once known: at once, at its `spawn` event, or undefined when
 * it could not start.
 */
export function whenSpawned(child: ShellProcess): Promise<number | undefined> {
  if (child.pid !== undefined) return Promise.resolve(child.pid);
  return new Promise((resolve) => {
    const onSpawn = () => {
      child.off("error", onError);
      resolve(child.pid);
    };
    const onError = () => {
      child.off("spawn", onSpawn);
      resolve(undefined);
    };
    child.once("spawn", onSpawn);
    child.once("error", onError);
  });
}

/** Forgets a group once it is gone (a pgid may be reused by an unrelated process later). */
function forgetGroupIfGone(pgid: number): void {
  if (!isGroupAlive(pgid)) liveGroups.delete(pgid);
}

/**
 * Kills every tracked group (SIGTERM, then SIGKILL after `graceMs`) and resolves once they are gone:
 * the last thing a program does before it exits, so no tool process outlives it.
 */
export async function killTrackedGroups(graceMs: number = KILL_GRACE_MS): Promise<void> {
  await Promise.all([...liveGroups].map((pgid) => killProcessGroup(pgid, graceMs)));
}

/** SIGKILLs every tracked group at once, synchronously (for an `exit` handler, where nothing can wait). */
export function killTrackedGroupsNow(): void {
  for (const pgid of liveGroups) {
    if (isGroupAlive(pgid)) signalGroup(pgid, "SIGKILL");
  }
  liveGroups.clear();
}

/** Finds `bash` on PATH (or in /bin, /usr/bin), falling back to `/bin/sh` when there is none. */
export function resolveShell(envPath: string | undefined = process.env.PATH): string {
  const dirs = [...(envPath ?? "").split(path.delimiter).filter(Boolean), "/bin", "/usr/bin"];
  for (const dir of dirs) {
    const candidate = path.join(dir, "bash");
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // Not here; try the next directory.
    }
  }
  return "/bin/sh";
}

/**
 * Starts `command` with `bash -c` (or `sh -c`) in `cwd` with `env`, as the leader of a new process
 * group, stdin closed. stderr is redirected into stdout inside the shell so the two arrive interleaved in the
 * order they were written; the stderr pipe still exists for anything the shell prints before that.
 * With `wrap` (the sandbox), the shell runs inside what `wrap` starts; killing the group kills that.
 * The process is started by the spawn helper where it runs (`spawn-helper.ts`), so its `pid` may be
 * known only at its `spawn` event.
 */
export function spawnShell(
  command: string,
  cwd: string,
  env: Record<string, string | undefined> = process.env,
  wrap?: ShellWrapper,
): ShellProcess {
  // On one line so the shell's own error messages keep the user's line numbers.
  const argv = [resolveShell(env.PATH), "-c", `exec 2>&1; ${command}`];
  const launch = wrap?.(argv, env);
  const child = launch
    ? spawnDetached({
        file: launch.file,
        args: launch.args,
        cwd,
        env: launch.env ?? env,
        fd3: launch.fd3,
        statusFd: launch.statusFd,
      })
    : spawnDetached({ file: argv[0], args: argv.slice(1), cwd, env });
  if (launch?.statusFd !== undefined) {
    child.once("sandbox-init", (pid: number) => sandboxInits.set(child, pid));
  }
  trackChildGroup(child);
  return child;
}

/** The sandbox's init of each sandboxed child, read from the launcher's status lines. */
const sandboxInits = new WeakMap<ShellProcess, number>();

/**
 * Resolves once every process of `child`'s sandbox is gone, or after `maxMs`; at once for a child
 * that runs no sandbox. Why: bubblewrap exits as soon as the command does, while the sandbox's init
 * is still killing what the command left running (`setsid`, `nohup`, double forks): for that moment
 * they still run. The init exits only when they are all dead, so its end is the moment the call may
 * say nothing of the command is left.
 */
export async function untilSandboxGone(child: ShellProcess, maxMs = 1000): Promise<void> {
  const pid = sandboxInits.get(child);
  if (pid === undefined) return;
  const deadline = Date.now() + maxMs;
  while (isProcessAlive(pid) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Sends `signal` to every process in group `pgid`. Returns false when the group no longer exists. */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether any process of group `pgid` is still running. Zombies do not count: in containers whose
 * init does not reap, a killed grandchild stays a zombie forever, yet it runs nothing.
 */
export function isGroupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  const members = liveGroupMembers(pgid);
  return members === undefined || members.length > 0;
}

/** Pids of the non-zombie members of group `pgid`, from /proc; undefined where /proc is unavailable. */
export function liveGroupMembers(pgid: number): number[] | undefined {
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return undefined;
  }
  const members: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProcStat(Number(entry));
    if (stat && stat.pgrp === pgid && stat.state !== "Z" && stat.state !== "X") members.push(Number(entry));
  }
  return members;
}

/** Whether process `pid` is still running (a zombie counts as gone). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = readProcStat(pid);
  return stat === undefined || (stat.state !== "Z" && stat.state !== "X");
}

function readProcStat(pid: number): { state: string; pgrp: number } | undefined {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may itself contain spaces or parentheses.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0], pgrp: Number(fields[2]) };
}

/**
 * Kills the whole process group: SIGTERM, then SIGKILL if anything still runs after `graceMs`.
 * Resolves once the group is gone (or shortly after SIGKILL). Never rejects.
 */
export async function killProcessGroup(pgid: number, graceMs: number = KILL_GRACE_MS): Promise<void> {
  try {
    if (!signalGroup(pgid, "SIGTERM")) return;
    if (await waitForGroupExit(pgid, graceMs)) return;
    signalGroup(pgid, "SIGKILL");
    await waitForGroupExit(pgid, 1000);
  } finally {
    forgetGroupIfGone(pgid);
  }
}

/** Polls until group `pgid` has no running process; resolves false if it still has one after `ms`. */
async function waitForGroupExit(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!isGroupAlive(pgid)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
}
