/**
 * Benchmark (issue 33, item 6): how long one Bash call's process start blocks the host's event loop,
 * at a small and at a large host. `spawn()` forks the Node process (libuv), and fork copies the
 * parent's page tables, so the block grows with the host's resident memory: a server holding many
 * sessions stalls every one of them on each Bash call.
 *
 * Each size runs in its own child process that first grows its RSS (a Buffer filled so its pages are
 * resident), then runs CALLS Bash commands (`true`) through runCommand, the Bash tool's runner, plain
 * and inside bubblewrap when it is installed. Per call it reports the synchronous time of the call
 * (the event loop can run nothing else meanwhile) and, as a cross-check, the largest delay a 1 ms
 * timer saw (perf_hooks.monitorEventLoopDelay). Figures are medians of the calls after three warm-ups.
 * A third row measures a prototype of the proposed fix (a spawn helper; see startHelperPrototype).
 * Goal: under 5 ms blocked per call at any host size.
 *
 *   npm run build && node bench/spawn-block.mjs [calls=30] [bigMB=1500]
 */
import { fork, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { lastLine, median } from "./support/measure.mjs";

const self = fileURLToPath(import.meta.url);
const round = (x) => Math.round(x * 10) / 10;

/** Grows this process's resident memory to about `mb` MB; returns the memory so it stays alive. */
function growRss(mb) {
  const extra = Math.max(0, mb - process.memoryUsage().rss / 2 ** 20);
  const chunks = [];
  // 64 MB Buffers filled with non-zero bytes: every page is touched, so every page is resident.
  for (let left = extra; left > 0; left -= 64) chunks.push(Buffer.alloc(Math.min(64, left) * 2 ** 20, 1));
  return chunks;
}

/** One measured call: the synchronous part of starting it, and the worst timer delay until it ended. */
async function measuredCall(runCommand, wrap) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  await new Promise((r) => setTimeout(r, 5)); // the probe's timer is running before the call starts
  const t0 = performance.now();
  const done = runCommand({
    command: "true",
    cwd: tmpdir(),
    timeoutMs: 10_000,
    signal: new AbortController().signal,
    spillPath: () => join(tmpdir(), "goat-bench-spawn-spill.txt"),
    ...(wrap ? { wrap } : {}),
  });
  const syncMs = performance.now() - t0;
  const outcome = await done;
  histogram.disable();
  if (outcome.exitCode !== 0) throw new Error(`the call failed: ${JSON.stringify(outcome)}`);
  return { syncMs, maxDelayMs: histogram.max / 1e6 };
}

/**
 * The design ARCHITECTURE.md proposes, as a prototype (not the library's code): a small helper
 * process, forked while the host is small, spawns each command and hands the host the child's pipes
 * over its IPC channel (SCM_RIGHTS), then reports the exit. The host only writes a message.
 */
function startHelperPrototype() {
  const helper = fork(self, ["--helper"], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const waiting = new Map();
  let next = 0;
  helper.on("message", (message, handle) => {
    const call = waiting.get(message.id);
    if (handle) handle.resume(); // the command's output, read straight from its pipe
    if (message.exit) {
      waiting.delete(message.id);
      call.resolve({ exitCode: message.exit.code });
    }
  });
  const runCommand = ({ command, cwd }) =>
    new Promise((resolve) => {
      const id = ++next;
      waiting.set(id, { resolve });
      helper.send({ id, command, cwd });
    });
  return { runCommand, stop: () => helper.kill() };
}

/** The prototype's helper side: spawn, pass the pipes, report the exit. */
function helperPrototypeMain() {
  process.on("message", ({ id, command, cwd }) => {
    const run = spawn("/bin/sh", ["-c", command], { cwd, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    process.send({ id, pid: run.pid }, run.stdout);
    process.send({ id, pid: run.pid }, run.stderr);
    run.on("exit", (code, signal) => process.send({ id, exit: { code, signal } }));
  });
}

async function child(mb, calls) {
  // Forked before the host grows, as a library would at start-up.
  const prototype = process.platform === "win32" ? undefined : startHelperPrototype();
  const keep = growRss(mb);
  const { runCommand } = await import("../dist/tools/run-command.js");
  const { createBashSandbox } = await import("../dist/sandbox/bash-sandbox.js");
  const wraps = { plain: undefined };
  if (existsSync("/usr/bin/bwrap")) {
    wraps.bwrap = await createBashSandbox({ enabled: true }, { directories: () => [tmpdir()] }).prepare(
      tmpdir(),
    );
  }
  const result = { hostRssMB: Math.round(process.memoryUsage().rss / 2 ** 20) };
  for (const [name, wrap] of Object.entries(wraps)) {
    for (let i = 0; i < 3; i++) await measuredCall(runCommand, wrap); // warm
    const runs = [];
    for (let i = 0; i < calls; i++) runs.push(await measuredCall(runCommand, wrap));
    result[name] = {
      syncMs: round(median(runs.map((r) => r.syncMs))),
      maxDelayMs: round(median(runs.map((r) => r.maxDelayMs))),
    };
  }
  if (prototype) {
    for (let i = 0; i < 3; i++) await measuredCall(prototype.runCommand);
    const runs = [];
    for (let i = 0; i < calls; i++) runs.push(await measuredCall(prototype.runCommand));
    result["helper prototype"] = {
      syncMs: round(median(runs.map((r) => r.syncMs))),
      maxDelayMs: round(median(runs.map((r) => r.maxDelayMs))),
    };
    prototype.stop();
  }
  result.heldMB = keep.length * 64;
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}

if (process.argv[2] === "--helper") helperPrototypeMain();
else if (process.argv[2] === "--child") await child(Number(process.argv[3]), Number(process.argv[4]));
else {
  const calls = Number(process.argv[2] ?? 30);
  const big = Number(process.argv[3] ?? 1500);
  const results = [];
  for (const mb of [50, big]) {
    const run = spawn(process.execPath, [self, "--child", String(mb), String(calls)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    results.push(await lastLine(run));
  }
  for (const r of results) {
    const parts = Object.entries(r)
      .filter(([, v]) => typeof v === "object")
      .map(([k, v]) => `${k}: ${v.syncMs} ms blocked (worst timer delay ${v.maxDelayMs} ms)`);
    console.error(`host RSS ${r.hostRssMB} MB, one Bash call's start: ${parts.join("; ")}`);
  }
  console.log(JSON.stringify({ bench: "spawn-block", calls, results }));
}
