/**
 * Benchmark: start-up of the `goat` CLI (built dist/). Measures, beside `node -e 0` in the same run
 * (median of N runs each): `goat --version` wall time, and in print mode the time from spawning
 * `goat -p` to its first request reaching an instant mock server (an inline http server that records
 * the arrival time). Also the peak RSS of the print-mode run (`/usr/bin/time -v` when present, else
 * the child's own `process.resourceUsage().maxRSS` reported through `--import`).
 * `goat` is the package's `bin` (the esbuild bundle, dist/bin/goat.js); the same program unbundled
 * (tsc's dist/cli/main.js) is measured beside it, to show what the bundle saves.
 * Targets: first request within 150 ms of start, peak RSS under 80 MB.
 *
 *   npm run build && node bench/cli.mjs [runs=20] [cli=the package's bin]
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cannedAnthropicAnswer } from "./support/instant-server.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).bin.goat;
const CLI = resolve(root, process.argv[3] ?? bin);
const UNBUNDLED = join(root, "dist/cli/main.js");
const RUNS = Number(process.argv[2] ?? 20);
for (const file of [CLI, UNBUNDLED]) {
  if (!existsSync(file)) {
    console.error(`${file} is missing: run npm run build first`);
    process.exit(1);
  }
}

// The instant server: answers every POST with one canned SSE stream, recording when it arrived.
let arrivals = [];
const answer = cannedAnthropicAnswer();
const server = http.createServer((req, res) => {
  if (req.method === "POST") arrivals.push(performance.now());
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(answer);
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const baseURL = `http://127.0.0.1:${server.address().port}`;
const home = mkdtempSync(join(tmpdir(), "goat-bench-cli-"));
const env = {
  PATH: process.env.PATH,
  HOME: home,
  GOAT_HOME: home,
  ANTHROPIC_BASE_URL: baseURL,
  ANTHROPIC_API_KEY: "bench",
};

/** Spawns and waits; returns wall ms and the first request's delay after spawn (if any). */
function runOnce(args) {
  return new Promise((resolve, reject) => {
    arrivals = [];
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { env, cwd: home, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stdout.resume();
    child.stderr.on("data", (b) => {
      stderr += b;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const wall = performance.now() - t0;
      if (code !== 0) reject(new Error(`${args.join(" ")} exited ${code}: ${stderr}`));
      else resolve({ wall, firstRequest: arrivals.length > 0 ? arrivals[0] - t0 : undefined });
    });
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Runs each command once per round, RUNS rounds (after one warm-up round for the file cache), and
 * returns each one's samples. Round-robin rather than one series after another: on a shared machine
 * the load drifts, and a baseline measured in a quiet minute would flatter or punish the ratios.
 */
async function rounds(commands) {
  const samples = commands.map(() => []);
  for (let round = -1; round < RUNS; round++) {
    for (const [i, args] of commands.entries()) {
      const r = await runOnce(args);
      if (round >= 0) samples[i].push(r);
    }
  }
  return samples;
}

const printArgs = [CLI, "-p", "hello", "--no-session-persistence"];
const fetchScript = `fetch(${JSON.stringify(`${baseURL}/v1/messages`)},{method:"POST",body:"{}"}).then(r=>r.text())`;
const [nodeRuns, fetchRuns, versionRuns, printRuns, unbundledRuns] = await rounds([
  ["-e", "0"],
  ["-e", fetchScript],
  [CLI, "--version"],
  printArgs,
  [UNBUNDLED, ...printArgs.slice(1)],
]);
const nodeBaseline = median(nodeRuns.map((r) => r.wall));
const fetchBaseline = median(fetchRuns.map((r) => r.firstRequest));
const version = median(versionRuns.map((r) => r.wall));
const firstRequest = median(printRuns.map((r) => r.firstRequest));
const printWall = median(printRuns.map((r) => r.wall));
const unbundledFirstRequest = median(unbundledRuns.map((r) => r.firstRequest));

/** Runs a command to its end (asynchronously, so the inline server keeps answering); returns stderr. */
function stderrOf(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, cwd: home, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (b) => {
      stderr += b;
    });
    child.on("error", reject);
    child.on("close", () => resolve(stderr));
  });
}

/** Peak RSS in MB of one run of `node args`. */
async function peakRssMb(args) {
  if (existsSync("/usr/bin/time")) {
    const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(
      await stderrOf("/usr/bin/time", ["-v", process.execPath, ...args]),
    );
    if (m) return { mb: Number(m[1]) / 1024, how: "/usr/bin/time -v" };
  }
  const hook =
    "data:text/javascript,process.on('exit',()=>process.stderr.write('\\nMAXRSS='+process.resourceUsage().maxRSS+'\\n'))";
  const m = /MAXRSS=(\d+)/.exec(await stderrOf(process.execPath, ["--import", hook, ...args]));
  return { mb: m ? Number(m[1]) / 1024 : Number.NaN, how: "process.resourceUsage().maxRSS" };
}

const rssValues = [];
let rssHow = "";
for (let i = 0; i < 5; i++) {
  const r = await peakRssMb(printArgs);
  rssValues.push(r.mb);
  rssHow = r.how;
}
const nodeRss = (await peakRssMb(["-e", "0"])).mb;
server.close();
rmSync(home, { recursive: true, force: true });

const ms = (x) => `${x.toFixed(1)} ms`;
const rows = [
  ["node -e 0 (wall)", ms(nodeBaseline), "1.00x"],
  ["goat --version (wall)", ms(version), `${(version / nodeBaseline).toFixed(2)}x`],
  ["node -e fetch: spawn → request", ms(fetchBaseline), `${(fetchBaseline / nodeBaseline).toFixed(2)}x`],
  ["goat -p: spawn → first request", ms(firstRequest), `${(firstRequest / nodeBaseline).toFixed(2)}x`],
  ["goat -p: whole run (wall)", ms(printWall), `${(printWall / nodeBaseline).toFixed(2)}x`],
  [
    "unbundled (tsc) → first request",
    ms(unbundledFirstRequest),
    `${(unbundledFirstRequest / nodeBaseline).toFixed(2)}x`,
  ],
  ["peak RSS node -e 0", `${nodeRss.toFixed(1)} MB`, ""],
  ["peak RSS goat -p", `${median(rssValues).toFixed(1)} MB`, `(${rssHow})`],
];
console.log(
  `goat CLI (${CLI.slice(root.length)}) start-up, median of ${RUNS} runs (ratio against node -e 0)`,
);
for (const [a, b, c] of rows) console.log(`${a.padEnd(34)} ${b.padStart(10)}  ${c}`);
console.log(
  `targets: first request ≤ 150 ms: ${firstRequest <= 150 ? "met" : "missed"}; RSS < 80 MB: ${median(rssValues) < 80 ? "met" : "missed"}`,
);
console.log(
  JSON.stringify({
    bench: "cli",
    runs: RUNS,
    node_e0_ms: +nodeBaseline.toFixed(1),
    version_ms: +version.toFixed(1),
    fetch_first_request_ms: +fetchBaseline.toFixed(1),
    first_request_ms: +firstRequest.toFixed(1),
    print_wall_ms: +printWall.toFixed(1),
    unbundled_first_request_ms: +unbundledFirstRequest.toFixed(1),
    version_ratio: +(version / nodeBaseline).toFixed(2),
    first_request_ratio: +(firstRequest / nodeBaseline).toFixed(2),
    peak_rss_mb: +median(rssValues).toFixed(1),
    node_rss_mb: +nodeRss.toFixed(1),
    rss_method: rssHow,
  }),
);
