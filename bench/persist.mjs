/**
 * Benchmark (issue 18): what persisting the transcript (the default) costs per turn. The same
 * scripted session of K tool rounds runs through query() with `persistSession: false` and with the
 * default JSONL store (in a temp `$GOAT_HOME`), and through the hand-written node:http loop as the
 * floor, against the same instant mock server (a child process). Runs are interleaved and rotated.
 *
 * Figures: marginal wall and CPU per turn ((K=200 − K=20) / 180, medians) and the ratio persisted /
 * not persisted (goal: within 1.1x). Prints a table and a final JSON line.
 *
 *   npx tsc -p tsconfig.build.json && node bench/persist.mjs [reps=7]
 */
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { runNodeHttp, runOurs } from "./support/loop-runners.mjs";
import { median, spawnLoopServer } from "./support/measure.mjs";

const SHORT = 20;
const LONG = 200;
const REPS = Number(process.argv[2] ?? 7);

const home = mkdtempSync(join(tmpdir(), "goat-bench-persist-"));
process.env.GOAT_HOME = home;
const server = await spawnLoopServer();
const baseURL = server.baseURL;
const agent = new http.Agent({ keepAlive: true });

const runners = {
  "in-memory": (k) => runOurs(baseURL, k, { persistSession: false }),
  persisted: (k) => runOurs(baseURL, k, { persistSession: true }),
  "node:http": (k) => runNodeHttp(baseURL, k, agent),
};

try {
  const names = Object.keys(runners);
  // Warm-up to a steady state (ten long runs each): with three short runs each, the first reps still ran code V8 was
  // optimising (per-turn CPU fell from about 1.1 ms to 0.45 ms over nine reps), and the order of the
  // runners in those reps decided the ratio.
  for (let i = 0; i < 10; i++) for (const name of names) await runners[name](LONG);
  const m = Object.fromEntries(
    names.map((n) => [n, { wall: { [SHORT]: [], [LONG]: [] }, cpu: { [SHORT]: [], [LONG]: [] } }]),
  );
  for (let r = 0; r < REPS; r++) {
    for (let j = 0; j < names.length; j++) {
      const name = names[(j + r) % names.length];
      for (const k of [SHORT, LONG]) {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        await runners[name](k);
        const c = process.cpuUsage(c0);
        m[name].wall[k].push(performance.now() - t0);
        m[name].cpu[k].push((c.user + c.system) / 1000);
      }
    }
  }
  // Each rep's own marginal CPU, persisted over in-memory, measured minutes apart at most: on a loaded
  // machine the median of these paired ratios drifts less than the ratio of the two medians.
  const repMarginal = (name, r) => (m[name].cpu[LONG][r] - m[name].cpu[SHORT][r]) / (LONG - SHORT);
  const pairedCpuRatio = median(
    Array.from({ length: REPS }, (_, r) => repMarginal("persisted", r) / repMarginal("in-memory", r)),
  );
  const perTurn = {};
  for (const name of names) {
    const x = m[name];
    perTurn[name] = {
      marginalWallMs: (median(x.wall[LONG]) - median(x.wall[SHORT])) / (LONG - SHORT),
      marginalCpuMs: (median(x.cpu[LONG]) - median(x.cpu[SHORT])) / (LONG - SHORT),
    };
  }
  const f = (v, w, d) => v.toFixed(d).padStart(w);
  console.log(`${"runner".padEnd(12)}${"wall/turn ms".padStart(14)}${"cpu/turn ms".padStart(14)}`);
  for (const [name, p] of Object.entries(perTurn))
    console.log(`${name.padEnd(12)}${f(p.marginalWallMs, 14, 3)}${f(p.marginalCpuMs, 14, 3)}`);
  const result = {
    bench: "persist",
    reps: REPS,
    perTurn,
    persistedVsInMemoryWall: perTurn.persisted.marginalWallMs / perTurn["in-memory"].marginalWallMs,
    persistedVsInMemoryCpu: perTurn.persisted.marginalCpuMs / perTurn["in-memory"].marginalCpuMs,
    persistedVsInMemoryCpuPaired: pairedCpuRatio,
    persistedVsNodeHttpWall: perTurn.persisted.marginalWallMs / perTurn["node:http"].marginalWallMs,
  };
  console.log(
    `persisted / in-memory: wall ${result.persistedVsInMemoryWall.toFixed(2)}x, cpu ${result.persistedVsInMemoryCpu.toFixed(2)}x (median of per-rep ratios ${pairedCpuRatio.toFixed(2)}x; load average ${loadavg()[0].toFixed(1)})`,
  );
  console.log(JSON.stringify(result));
} finally {
  agent.destroy();
  server.stop();
  rmSync(home, { recursive: true, force: true });
}
