/**
 * Benchmark (issue 33, item 6): how long one Bash call's process start blocks the host's event loop,
 * at a small and at a large host. `spawn()` forks the Node process (libuv), and fork copies the
 * parent's page tables, so the block grows with the host's resident memory: a server holding many
 * sessions stalls every one of them on each Bash call. Goat starts tool processes through a spawn
 * helper (src/tools/spawn-helper.ts) so that the host only writes a message; `GOAT_SPAWN_HELPER=0`
 * turns it off, which is how the "direct" rows measure the spawn from the host as it was.
 *
 * Each size and mode runs in its own child process that first grows its RSS (a Buffer filled so its
 * pages are resident), then runs CALLS Bash commands (`true`) through runCommand, the Bash tool's
 * runner, plain and inside bubblewrap when it is installed. Per call it reports the synchronous time
 * of the call (the event loop can run nothing else meanwhile) and, as a cross-check, the largest delay
 * a 1 ms timer saw (perf_hooks.monitorEventLoopDelay). Figures are medians of the calls after three
 * warm-ups; `firstCallMs` is the first call of the process, which starts the helper (a fork of the
 * host, paid once). Goal: under 5 ms blocked per call at any host size.
 *
 *   npm run build && node bench/spawn-block.mjs [calls=30] [bigMB=1500]
 */
import { spawn } from "node:child_process";
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

async function child(mb, calls) {
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
  result.firstCallMs = round((await measuredCall(runCommand, undefined)).syncMs);
  for (const [name, wrap] of Object.entries(wraps)) {
    for (let i = 0; i < 3; i++) await measuredCall(runCommand, wrap); // warm
    const runs = [];
    for (let i = 0; i < calls; i++) runs.push(await measuredCall(runCommand, wrap));
    result[name] = {
      syncMs: round(median(runs.map((r) => r.syncMs))),
      maxDelayMs: round(median(runs.map((r) => r.maxDelayMs))),
    };
  }
  result.heldMB = keep.length * 64;
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}

if (process.argv[2] === "--child") await child(Number(process.argv[3]), Number(process.argv[4]));
else {
  const calls = Number(process.argv[2] ?? 30);
  const big = Number(process.argv[3] ?? 1500);
  const results = [];
  for (const mb of [50, big]) {
    for (const mode of ["helper", "direct"]) {
      const env = { ...process.env, GOAT_SPAWN_HELPER: mode === "helper" ? "1" : "0" };
      const run = spawn(process.execPath, [self, "--child", String(mb), String(calls)], {
        stdio: ["ignore", "pipe", "inherit"],
        env,
      });
      results.push({ mode, ...(await lastLine(run)) });
    }
  }
  for (const r of results) {
    const parts = Object.entries(r)
      .filter(([, v]) => typeof v === "object")
      .map(([k, v]) => `${k}: ${v.syncMs} ms blocked (worst timer delay ${v.maxDelayMs} ms)`);
    console.error(
      `host RSS ${r.hostRssMB} MB, ${r.mode}, one Bash call's start: ${parts.join("; ")}; first call ${r.firstCallMs} ms`,
    );
  }
  console.log(JSON.stringify({ bench: "spawn-block", calls, results }));
}
