/**
 * Benchmark (issue 18): what persisting the transcript (the default) costs per turn. The same
 * scripted session of K tool rounds runs through query() with `persistSession: false` and with the
 * default JSONL store (in a temp `$GOAT_HOME`), and through the hand-written node:http loop as the
 * floor, against the same instant mock server (a child process). Runs are interleaved and rotated.
 *
 * A fourth runner persists with `fsync: true` (every write waits for fdatasync), to show what
 * OS-crash safety costs.
 *
 * Figures: marginal wall and CPU per turn ((K=200 − K=20) / 180, medians), the median turn (answer to
 * answer, turns 21-200; robust to the odd GC pause or scheduler hiccup), and the ratios persisted / not
 * persisted (goal: within 1.1x), also as the median of each rep's own ratio with its middle half.
 * Prints a table and a final JSON line.
 *
 *   npx tsc -p tsconfig.build.json && node bench/persist.mjs [reps=15]
 */
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { runNodeHttp, runOurs } from "./support/loop-runners.mjs";
import { median, spawnLoopServer } from "./support/measure.mjs";

const SHORT = 20;
const LONG = 200;
const REPS = Number(process.argv[2] ?? 15);

const home = mkdtempSync(join(tmpdir(), "goat-bench-persist-"));
process.env.GOAT_HOME = home;
const server = await spawnLoopServer();
const baseURL = server.baseURL;
const agent = new http.Agent({ keepAlive: true });

const { createJsonlSessionStore } = await import("../dist/session/jsonl-store.js");
/** The `fsync: true` store: each write waits for fdatasync (OS-crash safety), for what it costs. */
const fsyncStore = createJsonlSessionStore({ home, fsync: true });

const runners = {
  "in-memory": (k) => runOurs(baseURL, k, { persistSession: false }),
  persisted: (k) => runOurs(baseURL, k, { persistSession: true }),
  "node:http": (k) => runNodeHttp(baseURL, k, agent),
  fsync: (k) => runOurs(baseURL, k, { persistSession: true, sessionStore: fsyncStore }),
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
  /** Each runner's turn lengths in the long runs (time from one answer to the next), past turn SHORT. */
  const turns = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < REPS; r++) {
    for (let j = 0; j < names.length; j++) {
      const name = names[(j + r) % names.length];
      for (const k of [SHORT, LONG]) {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        const stamps = await runners[name](k);
        const c = process.cpuUsage(c0);
        if (k === LONG)
          for (let i = SHORT + 1; i < stamps.length; i++) turns[name].push(stamps[i] - stamps[i - 1]);
        m[name].wall[k].push(performance.now() - t0);
        m[name].cpu[k].push((c.user + c.system) / 1000);
      }
    }
  }
  // Each rep's own marginal CPU, persisted over in-memory, measured minutes apart at most: on a loaded
  // machine the median of these paired ratios drifts less than the ratio of the two medians.
  const repMarginal = (name, kind, r) => (m[name][kind][LONG][r] - m[name][kind][SHORT][r]) / (LONG - SHORT);
  const pairedRatios = (kind) =>
    Array.from(
      { length: REPS },
      (_, r) => repMarginal("persisted", kind, r) / repMarginal("in-memory", kind, r),
    ).sort((a, b) => a - b);
  const quartiles = (sorted) => [
    sorted[Math.floor((sorted.length - 1) / 4)],
    sorted[Math.ceil((3 * (sorted.length - 1)) / 4)],
  ];
  const pairedCpu = pairedRatios("cpu");
  const pairedWall = pairedRatios("wall");
  const pairedCpuRatio = median(pairedCpu);
  const pairedWallRatio = median(pairedWall);
  const perTurn = {};
  for (const name of names) {
    const x = m[name];
    perTurn[name] = {
      marginalWallMs: (median(x.wall[LONG]) - median(x.wall[SHORT])) / (LONG - SHORT),
      marginalCpuMs: (median(x.cpu[LONG]) - median(x.cpu[SHORT])) / (LONG - SHORT),
      medianTurnMs: median(turns[name]),
    };
  }
  const f = (v, w, d) => v.toFixed(d).padStart(w);
  console.log(
    `${"runner".padEnd(12)}${"wall/turn ms".padStart(14)}${"cpu/turn ms".padStart(14)}${"median turn ms".padStart(16)}`,
  );
  for (const [name, p] of Object.entries(perTurn))
    console.log(
      `${name.padEnd(12)}${f(p.marginalWallMs, 14, 3)}${f(p.marginalCpuMs, 14, 3)}${f(p.medianTurnMs, 16, 3)}`,
    );
  const result = {
    bench: "persist",
    reps: REPS,
    perTurn,
    persistedVsInMemoryWall: perTurn.persisted.marginalWallMs / perTurn["in-memory"].marginalWallMs,
    persistedVsInMemoryCpu: perTurn.persisted.marginalCpuMs / perTurn["in-memory"].marginalCpuMs,
    persistedVsInMemoryMedianTurn: perTurn.persisted.medianTurnMs / perTurn["in-memory"].medianTurnMs,
    persistedVsInMemoryCpuPaired: pairedCpuRatio,
    persistedVsInMemoryWallPaired: pairedWallRatio,
    pairedCpuQuartiles: quartiles(pairedCpu),
    pairedWallQuartiles: quartiles(pairedWall),
    persistedVsNodeHttpWall: perTurn.persisted.marginalWallMs / perTurn["node:http"].marginalWallMs,
    fsyncVsInMemoryWall: perTurn.fsync.marginalWallMs / perTurn["in-memory"].marginalWallMs,
  };
  console.log(
    `persisted / in-memory: wall ${result.persistedVsInMemoryWall.toFixed(2)}x, cpu ${result.persistedVsInMemoryCpu.toFixed(2)}x (load average ${loadavg()[0].toFixed(1)})`,
  );
  const q = (xs) => xs.map((x) => x.toFixed(2)).join("-");
  console.log(
    `fsync: true (each write waits for fdatasync): ${(perTurn.fsync.marginalWallMs - perTurn["in-memory"].marginalWallMs).toFixed(2)} ms more per turn, ${result.fsyncVsInMemoryWall.toFixed(1)}x the in-memory turn`,
  );
  console.log(
    `median turn (answer to answer, turns ${SHORT + 1}-${LONG} of every long run): persisted / in-memory ${result.persistedVsInMemoryMedianTurn.toFixed(2)}x`,
  );
  console.log(
    `median of the ${REPS} per-rep ratios: wall ${pairedWallRatio.toFixed(2)}x (middle half ${q(quartiles(pairedWall))}), cpu ${pairedCpuRatio.toFixed(2)}x (middle half ${q(quartiles(pairedCpu))})`,
  );
  console.log(JSON.stringify(result));
} finally {
  agent.destroy();
  server.stop();
  rmSync(home, { recursive: true, force: true });
}
