/**
 * Benchmark: the cost of one agent-loop turn. The same scripted session of K tool rounds (a trivial
 * `echo` tool) runs through our query() (built dist/) and through two minimal hand-written loops, one
 * on fetch and one on node:http with a keep-alive agent, against the same instant mock server (a child
 * process, so only client work is timed). All three send the same bytes, growing history included.
 *
 * Figures: marginal wall and CPU per turn ((K=200 − K=20) / 180, medians over interleaved reps) and
 * its ratio to each floor; flatness (per-turn wall of turns 1-50 vs 151-200 at K=200); 500 concurrent
 * 20-round sessions (wall, peak RSS, in a fresh process each, ours beside node:http); heap per idle
 * session (multi-turn sessions waiting for input after a 20-round run, after GC). Two diagnostic rows
 * split ours: ours-loop runs query() with an in-process provider (no HTTP, no JSON), the loop's own
 * share; ours-prov drives our provider with the hand-written loop, the provider's share.
 * Target (issue 4):
 * within 1.5x of node:http per turn, flat as history grows, under 1 MB per idle session.
 * Prints a table and a final JSON line.
 *
 *   npx tsc -p tsconfig.build.json && node bench/loop.mjs [reps=7]
 */
import { spawn } from "node:child_process";
import http from "node:http";
import os from "node:os";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import {
  echoTool,
  promptFor,
  runFetch,
  runNodeHttp,
  runOurs,
  runOursNoTransport,
  startIdleOurs,
} from "./support/loop-runners.mjs";

const { createAnthropicProvider } = await import("../dist/llm/anthropic.js");
const { accumulate } = await import("../dist/llm/accumulate.js");
const { MINIMAL_SYSTEM_PROMPT } = await import("../dist/runtime/system-prompt.js");

const here = fileURLToPath(new URL(".", import.meta.url));
const self = fileURLToPath(import.meta.url);
const SHORT = 20;
const LONG = 200;
const CONCURRENT = 500;
const IDLE = 500;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const lastLine = (child) =>
  new Promise((resolve, reject) => {
    let line;
    createInterface({ input: child.stdout }).on("line", (l) => {
      line = l;
    });
    child.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(line)) : reject(new Error(`child exited ${code}`)),
    );
  });

function runnersFor(baseURL) {
  const agent = new http.Agent({ keepAlive: true });
  return {
    runners: {
      ours: (k) => runOurs(baseURL, k),
      "node:http": (k) => runNodeHttp(baseURL, k, agent),
      fetch: (k) => runFetch(baseURL, k),
    },
    // Diagnostics that split ours: the loop alone (in-process provider, no HTTP, no JSON), and our
    // provider alone (driven by the hand-written loop).
    diagnostic: {
      "ours-loop": (k) => runOursNoTransport(k),
      "ours-prov": (k) => runOursProvider(baseURL, k),
    },
    close: () => agent.destroy(),
  };
}

/**
 * Diagnostic: our provider (request body, transport, SSE, decoder) driven by the hand-written loop
 * instead of query(), so ours splits into provider and agent layer. Same bytes as the others.
 */
async function runOursProvider(baseURL, rounds) {
  const provider = createAnthropicProvider({ baseURL, apiKey: "x" });
  const tools = [{ name: "echo", description: echoTool.description, input_schema: echoTool.jsonSchema }];
  const messages = [{ role: "user", content: promptFor(rounds) }];
  const stamps = [];
  for (;;) {
    const request = {
      model: "claude-sonnet-4-5",
      system: MINIMAL_SYSTEM_PROMPT,
      messages: [...messages],
      tools,
      maxTokens: 32000,
    };
    const answer = await accumulate(provider.stream(request));
    stamps.push(performance.now());
    messages.push(answer);
    if (answer.stop_reason !== "tool_use") break;
    const results = [];
    for (const b of answer.content) {
      if (b.type !== "tool_use") continue;
      const out = await echoTool.execute(b.input, {});
      results.push({ type: "tool_result", tool_use_id: b.id, content: out.content });
    }
    messages.push({ role: "user", content: results });
  }
  if (stamps.length !== rounds + 1) throw new Error(`ours-provider: ${stamps.length} answers`);
  return stamps;
}

// ---- Child modes: each measurement of memory runs in a fresh process so its figures are its own. ----

if (process.argv[2] === "--concurrent") {
  const [, , , which, port] = process.argv;
  const { runners, close } = runnersFor(`http://127.0.0.1:${port}`);
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENT }, () => runners[which](SHORT)));
  const wallMs = performance.now() - t0;
  close();
  process.stdout.write(`${JSON.stringify({ wallMs, peakRssMB: process.resourceUsage().maxRSS / 1024 })}\n`);
  process.exit(0);
}

if (process.argv[2] === "--idle") {
  const base = `http://127.0.0.1:${process.argv[3]}`;
  const settle = () => {
    for (let i = 0; i < 4; i++) globalThis.gc();
  };
  await runOurs(base, SHORT); // load and warm the code before the baseline reading
  settle();
  const heap0 = process.memoryUsage().heapUsed;
  const rss0 = process.memoryUsage().rss;
  const sessions = [];
  // In batches, so the figure is what idle sessions hold rather than what 500 running ones need.
  for (let i = 0; i < IDLE; i += 50)
    sessions.push(...(await Promise.all(Array.from({ length: 50 }, () => startIdleOurs(base, SHORT)))));
  settle();
  const heapPerSessionKB = (process.memoryUsage().heapUsed - heap0) / IDLE / 1024;
  const rssPerSessionKB = (process.memoryUsage().rss - rss0) / IDLE / 1024;
  await Promise.all(sessions.map((s) => s.end()));
  process.stdout.write(`${JSON.stringify({ sessions: IDLE, heapPerSessionKB, rssPerSessionKB })}\n`);
  process.exit(0);
}

// ---- Main ----

const REPS = Number(process.argv[2] ?? 7);
const server = spawn(process.execPath, [`${here}support/loop-server.mjs`], {
  stdio: ["pipe", "pipe", "inherit"],
});
const port = JSON.parse(
  await new Promise((r) => createInterface({ input: server.stdout }).once("line", r)),
).port;
const baseURL = `http://127.0.0.1:${port}`;
const stats = async () => (await fetch(`${baseURL}/stats`)).json();

try {
  const { runners: overHttp, diagnostic, close } = runnersFor(baseURL);
  const runners = { ...overHttp, ...diagnostic };
  const names = Object.keys(runners);
  const bytes = {};
  for (const name of names) {
    for (let i = 0; i < 3; i++) await runners[name](SHORT); // warm-up (JIT, sockets)
    const before = await stats();
    await runners[name](SHORT);
    bytes[name] = (await stats()).bytes - before.bytes;
  }
  const sameBytes = [...Object.keys(overHttp), "ours-prov"].every((n) => bytes[n] === bytes.ours);

  const m = Object.fromEntries(
    names.map((n) => [
      n,
      { wall: { [SHORT]: [], [LONG]: [] }, cpu: { [SHORT]: [], [LONG]: [] }, first50: [], last50: [] },
    ]),
  );
  for (let r = 0; r < REPS; r++) {
    // Interleaved and rotated, so drift on a shared machine hits every runner alike.
    for (let j = 0; j < names.length; j++) {
      const name = names[(j + r) % names.length];
      for (const k of [SHORT, LONG]) {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        const stamps = await runners[name](k);
        const c = process.cpuUsage(c0);
        m[name].wall[k].push(performance.now() - t0);
        m[name].cpu[k].push((c.user + c.system) / 1000);
        if (k === LONG) {
          m[name].first50.push((stamps[50] - stamps[0]) / 50);
          m[name].last50.push((stamps[LONG] - stamps[LONG - 50]) / 50);
        }
      }
    }
  }
  close();

  const perTurn = {};
  for (const name of names) {
    const x = m[name];
    perTurn[name] = {
      wallK20Ms: median(x.wall[SHORT]),
      wallK200Ms: median(x.wall[LONG]),
      marginalWallMs: (median(x.wall[LONG]) - median(x.wall[SHORT])) / (LONG - SHORT),
      marginalCpuMs: (median(x.cpu[LONG]) - median(x.cpu[SHORT])) / (LONG - SHORT),
      first50Ms: median(x.first50),
      last50Ms: median(x.last50),
    };
    perTurn[name].growth = perTurn[name].last50Ms / perTurn[name].first50Ms;
  }

  const concurrent = {};
  for (const name of ["ours", "node:http"]) {
    concurrent[name] = await lastLine(
      spawn(process.execPath, [self, "--concurrent", name, String(port)], {
        stdio: ["ignore", "pipe", "inherit"],
      }),
    );
  }
  const idle = await lastLine(
    spawn(process.execPath, ["--expose-gc", self, "--idle", String(port)], {
      stdio: ["ignore", "pipe", "inherit"],
    }),
  );

  const ours = perTurn.ours;
  const ratios = {
    wallVsNodeHttp: ours.marginalWallMs / perTurn["node:http"].marginalWallMs,
    wallVsFetch: ours.marginalWallMs / perTurn.fetch.marginalWallMs,
    cpuVsNodeHttp: ours.marginalCpuMs / perTurn["node:http"].marginalCpuMs,
    cpuVsFetch: ours.marginalCpuMs / perTurn.fetch.marginalCpuMs,
  };
  const f = (x, w = 9, d = 2) => x.toFixed(d).padStart(w);
  console.log(
    `scripted session, K=${SHORT} and K=${LONG} tool rounds, ${REPS} interleaved reps (medians), ${(bytes.ours / 1024).toFixed(0)} KB sent per K=${SHORT} session${sameBytes ? " by every runner" : " (BYTES DIFFER)"}`,
  );
  console.log(
    "runner      wall K=20 ms  wall K=200 ms  wall/turn ms  cpu/turn ms  turns 1-50 ms  turns 151-200 ms",
  );
  for (const name of names) {
    const p = perTurn[name];
    console.log(
      `${name.padEnd(10)} ${f(p.wallK20Ms, 13, 1)} ${f(p.wallK200Ms, 14, 1)} ${f(p.marginalWallMs, 13, 3)} ${f(p.marginalCpuMs, 12, 3)} ${f(p.first50Ms, 14, 3)} ${f(p.last50Ms, 17, 3)}`,
    );
  }
  console.log(
    "(ours-loop: query() with an in-process provider, no HTTP or JSON: the loop's own share of ours;",
  );
  console.log(" ours-prov: our provider in the hand-written loop: the provider's share, beside node:http)");
  console.log(
    `ours per turn: ${ratios.wallVsNodeHttp.toFixed(2)}x node:http wall (${ratios.cpuVsNodeHttp.toFixed(2)}x cpu), ${ratios.wallVsFetch.toFixed(2)}x fetch wall (${ratios.cpuVsFetch.toFixed(2)}x cpu); history growth last50/first50 ${ours.growth.toFixed(2)}x (node:http ${perTurn["node:http"].growth.toFixed(2)}x)`,
  );
  for (const name of Object.keys(concurrent))
    console.log(
      `${CONCURRENT} concurrent ${SHORT}-round sessions, ${name.padEnd(9)}: wall ${f(concurrent[name].wallMs, 7, 0)} ms, peak RSS ${f(concurrent[name].peakRssMB, 6, 1)} MB`,
    );
  console.log(
    `idle multi-turn session after a ${SHORT}-round run: ${idle.heapPerSessionKB.toFixed(1)} KB heap, ${idle.rssPerSessionKB.toFixed(1)} KB RSS each (${idle.sessions} held)`,
  );
  // Every runner's per-turn cost grows a little (bigger bodies to encode and send); flat means not
  // growing much beyond what the floor itself shows.
  const flat = ours.growth <= Math.max(1.5, 1.25 * perTurn["node:http"].growth);
  const withinTarget = ratios.wallVsNodeHttp <= 1.5 && flat && idle.heapPerSessionKB < 1024;
  console.log(
    `load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores (wall figures are noisy on a loaded machine; cpu/turn is steadier)`,
  );
  console.log(
    `target: <= 1.5x node:http per turn, flat with history, < 1 MB per idle session: ${withinTarget ? "met" : "NOT met"}`,
  );
  console.log(
    JSON.stringify({
      bench: "loop",
      reps: REPS,
      sameBytes,
      perTurn,
      ratios,
      flat,
      loadAvg: os.loadavg()[0],
      concurrent,
      idle,
      target: 1.5,
      withinTarget,
    }),
  );
} finally {
  server.stdin.end();
}
