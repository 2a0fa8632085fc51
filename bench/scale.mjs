/**
 * Benchmark (issue 18): many persisted sessions in one process. Each figure comes from a fresh child
 * process (so memory is its own) against the instant mock server of the loop benchmark:
 * - N concurrent persisted sessions of 20 tool rounds, for N = 50 and N = 10,000: wall, CPU per turn,
 *   peak RSS; the per-turn cost at 10,000 against the 50-session figure of the same run (goal 1.3x);
 *   the hand-written node:http loop at both sizes as the floor;
 * - N idle persisted sessions (a 20-round run done, waiting for the next prompt): heap and RSS per
 *   session after GC (goal under 0.4 MB);
 * - per-call time at turn 1,000 of one session (the median call of turns 950-999, better of two
 *   sessions) against the hand-written node:http floor sending the same growing history (goal 1.3x).
 *
 *   npx tsc -p tsconfig.build.json && node bench/scale.mjs [sessions=10000]
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runNodeHttp, runOurs, startIdleOurs } from "./support/loop-runners.mjs";
import { lastLine, median, spawnLoopServer } from "./support/measure.mjs";

const self = fileURLToPath(import.meta.url);
const ROUNDS = 20;
const LONG = 999; // query() in the runner allows 1,000 turns: 999 rounds and the final answer

const inChild = (...args) =>
  lastLine(spawn(process.execPath, ["--expose-gc", self, ...args], { stdio: ["ignore", "pipe", "inherit"] }));

if (process.argv[2] === "--concurrent" || process.argv[2] === "--concurrent-floor") {
  const [, , , n, port] = process.argv;
  const base = `http://127.0.0.1:${port}`;
  // The floor: the hand-written node:http loop, each session with its own keep-alive agent as each
  // of ours has its own provider (so both hold one socket per session).
  const run =
    process.argv[2] === "--concurrent"
      ? () => runOurs(base, ROUNDS, { persistSession: true })
      : () => {
          const agent = new http.Agent({ keepAlive: true });
          return runNodeHttp(base, ROUNDS, agent).finally(() => agent.destroy());
        };
  await run(); // warm the code
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: Number(n) }, run));
  const wallMs = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const turns = Number(n) * (ROUNDS + 1);
  process.stdout.write(
    `${JSON.stringify({
      sessions: Number(n),
      wallMs,
      wallPerTurnMs: wallMs / turns,
      cpuPerTurnMs: (c.user + c.system) / 1000 / turns,
      peakRssMB: process.resourceUsage().maxRSS / 1024,
    })}\n`,
  );
  process.exit(0);
}

if (process.argv[2] === "--idle") {
  const [, , , n, port] = process.argv;
  const base = `http://127.0.0.1:${port}`;
  const settle = () => {
    for (let i = 0; i < 4; i++) globalThis.gc();
  };
  await runOurs(base, ROUNDS, { persistSession: true });
  settle();
  const heap0 = process.memoryUsage().heapUsed;
  const rss0 = process.memoryUsage().rss;
  const sessions = [];
  for (let i = 0; i < Number(n); i += 100) {
    const batch = Array.from({ length: Math.min(100, Number(n) - i) }, () =>
      startIdleOurs(base, ROUNDS, { persistSession: true }),
    );
    sessions.push(...(await Promise.all(batch)));
  }
  settle();
  const heapPerSessionMB = (process.memoryUsage().heapUsed - heap0) / Number(n) / 2 ** 20;
  const rssPerSessionMB = (process.memoryUsage().rss - rss0) / Number(n) / 2 ** 20;
  await Promise.all(sessions.map((s) => s.end()));
  process.stdout.write(`${JSON.stringify({ sessions: Number(n), heapPerSessionMB, rssPerSessionMB })}\n`);
  process.exit(0);
}

if (process.argv[2] === "--long") {
  const base = `http://127.0.0.1:${process.argv[3]}`;
  const agent = new http.Agent({ keepAlive: true });
  // The median call of each window of 50: one GC pause or a busy neighbour moves a mean of 50 calls
  // by a millisecond on a loaded machine; the median says what a call costs.
  const window = (stamps, from) =>
    median(stamps.slice(from + 1, from + 51).map((t, i) => t - stamps[from + i]));
  const perCall = (stamps) => ({ early: window(stamps, 10), late: window(stamps, LONG - 50) });
  // Two of each, alternated, the better taken: a session is minutes long here, and load comes and goes.
  const best = (a, b) => (a.late <= b.late ? a : b);
  const ours1 = perCall(await runOurs(base, LONG, { persistSession: true }));
  const floor1 = perCall(await runNodeHttp(base, LONG, agent));
  const ours = best(ours1, perCall(await runOurs(base, LONG, { persistSession: true })));
  const floor = best(floor1, perCall(await runNodeHttp(base, LONG, agent)));
  agent.destroy();
  process.stdout.write(`${JSON.stringify({ ours, floor, lateVsFloor: ours.late / floor.late })}\n`);
  process.exit(0);
}

// ---- Main ----
const N = Number(process.argv[2] ?? 10_000);
const home = mkdtempSync(join(tmpdir(), "goat-bench-scale-"));
process.env.GOAT_HOME = home;
const server = await spawnLoopServer();
const port = server.port;
try {
  const small = await inChild("--concurrent", "50", String(port));
  const large = await inChild("--concurrent", String(N), String(port));
  const floorSmall = await inChild("--concurrent-floor", "50", String(port));
  const floorLarge = await inChild("--concurrent-floor", String(N), String(port));
  const idle = await inChild("--idle", String(N), String(port));
  const long = await inChild("--long", String(port));
  const result = {
    bench: "scale",
    concurrent: { small, large, floorSmall, floorLarge },
    largeVsSmallCpuPerTurn: large.cpuPerTurnMs / small.cpuPerTurnMs,
    largeVsSmallWallPerTurn: large.wallPerTurnMs / small.wallPerTurnMs,
    largeVsFloorCpuPerTurn: large.cpuPerTurnMs / floorLarge.cpuPerTurnMs,
    smallVsFloorCpuPerTurn: small.cpuPerTurnMs / floorSmall.cpuPerTurnMs,
    idle,
    long,
  };
  console.log(
    `${N} persisted sessions x ${ROUNDS} rounds: ${(large.wallMs / 1000).toFixed(1)} s, peak RSS ${large.peakRssMB.toFixed(0)} MB (${(large.peakRssMB / N).toFixed(3)} MB/session)`,
  );
  console.log(
    `per turn vs 50 sessions: cpu ${result.largeVsSmallCpuPerTurn.toFixed(2)}x, wall ${result.largeVsSmallWallPerTurn.toFixed(2)}x`,
  );
  console.log(
    `node:http floor, ${N} sessions: ${(floorLarge.wallMs / 1000).toFixed(1)} s, peak RSS ${floorLarge.peakRssMB.toFixed(0)} MB; ours / floor cpu per turn: ${result.largeVsFloorCpuPerTurn.toFixed(2)}x at ${N}, ${result.smallVsFloorCpuPerTurn.toFixed(2)}x at 50`,
  );
  console.log(
    `idle persisted session: heap ${idle.heapPerSessionMB.toFixed(3)} MB, rss ${idle.rssPerSessionMB.toFixed(3)} MB`,
  );
  console.log(
    `call at turn ${LONG}: ${long.ours.late.toFixed(2)} ms vs floor ${long.floor.late.toFixed(2)} ms (${long.lateVsFloor.toFixed(2)}x); early ${long.ours.early.toFixed(2)} vs ${long.floor.early.toFixed(2)}`,
  );
  console.log(JSON.stringify(result));
} finally {
  server.stop();
  rmSync(home, { recursive: true, force: true });
}
