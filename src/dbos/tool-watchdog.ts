/**
 * The watchdog of a durable worker's tool processes (Linux): tools start their commands as leaders
 * of process groups of their own, so a worker killed with SIGKILL left them running, and a takeover
 * answered the cut call "interrupted" while its command went on. The worker starts a small process
 * with a pipe on its stdin; every `WATCH_MS` it notes the process groups led by the worker's children
 * (from /proc), and when the pipe closes — the worker is gone, however it died — it SIGKILLs those
 * groups and exits. A group started after its last look is missed: a window of `WATCH_MS`.
 *
 * The watchdog's code is given to `node -e`, not as a file: the worker may run bundled into one file
 * (as the tests' worker is), where no sibling file can be found.
 */
import { spawn } from "node:child_process";

const WATCH_MS = 100;

/** Starts the watchdog of this process's tool groups; returns its stop (the worker's graceful end). */
export function startToolWatchdog(): () => void {
  if (process.platform !== "linux") return () => {};
  const child = spawn(
    process.execPath,
    ["-e", WATCHDOG_SOURCE, String(process.pid), String(WATCH_MS)],
    // Its own group, so a signal to the worker's group (Ctrl-C) leaves it to see the pipe close.
    { stdio: ["pipe", "ignore", "ignore"], detached: true },
  );
  child.on("error", () => {});
  child.unref();
  (child.stdin as unknown as { unref?: () => void }).unref?.();
  return () => {
    child.stdin?.destroy();
  };
}

/**
 * The watchdog's program, run by `node -e WATCHDOG_SOURCE WORKER_PID WATCH_MS`. Plain JavaScript in
 * a string, not a function's `toString()`: a bundler rewrites `require` inside functions it bundles.
 */
const WATCHDOG_SOURCE = `
const fs = require("node:fs");
const worker = Number(process.argv[1]);
let groups = [];
function look() {
  const found = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync("/proc/" + entry + "/stat", "utf8");
      // After the command name (which may hold spaces and parentheses): state ppid pgrp ...
      const [, ppid, pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const pid = Number(entry);
      // Its own group too is led by a child of the worker: not one to kill.
      if (Number(ppid) === worker && Number(pgrp) === pid && pid !== process.pid) found.push(pid);
    } catch {}
  }
  groups = found;
}
const timer = setInterval(look, Number(process.argv[2]));
process.stdin.on("data", () => {});
process.stdin.on("close", () => {
  clearInterval(timer);
  for (const pgid of groups) {
    try { process.kill(-pgid, "SIGKILL"); } catch {}
  }
  process.exit(0);
});
`;
