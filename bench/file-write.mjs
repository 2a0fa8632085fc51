/**
 * File-write benchmark: the cost of one Write (a new 100-byte file; an overwrite of a file just
 * read) and one Edit, per call over batches of 1000 calls. Imports the built code (`npx tsc -p
 * tsconfig.build.json` first), or the directory BENCH_TOOLS_DIR names. With BENCH_BASELINE_DIR (a
 * build of another revision) both run in this process, batch by batch in turn, so a busy machine
 * slows both alike; the ratio is then the figure to read. BENCH_DIR=/dev/shm (tmpfs) takes the
 * disk flush out, leaving the cost of the code and its system calls. Prints a table and a JSON line.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const CALLS = 1000;
const dist =
  process.env.BENCH_TOOLS_DIR ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/tools");

async function loadTools(dir) {
  const load = async (name) => import(pathToFileURL(path.join(dir, name)).href);
  const { writeTool } = await load("write.js");
  const { editTool } = await load("edit.js");
  const { recordFileSnapshot } = await load("file-state.js");
  return { writeTool, editTool, recordFileSnapshot };
}

const builds = { current: await loadTools(dist) };
if (process.env.BENCH_BASELINE_DIR) builds.baseline = await loadTools(process.env.BENCH_BASELINE_DIR);
const root = fs.realpathSync(
  fs.mkdtempSync(path.join(process.env.BENCH_DIR ?? os.tmpdir(), "goat-bench-write-")),
);

function ctx() {
  const state = { readFiles: new Map(), backgroundShells: new Map(), cleanups: [] };
  return {
    signal: new AbortController().signal,
    cwd: root,
    sessionId: "bench",
    toolUseId: "b",
    state,
    onUpdate() {},
  };
}

const content = `${"x".repeat(99)}\n`;
let round = 0;
const check = (r) => {
  if (r.isError) throw new Error(String(r.content));
};

/** One batch of each case, for one build. */
const cases = {
  async writeNew({ writeTool }) {
    const c = ctx();
    const dir = path.join(root, `new-${round++}`);
    fs.mkdirSync(dir);
    for (let i = 0; i < CALLS; i++)
      check(await writeTool.execute({ file_path: path.join(dir, `f${i}.txt`), content }, c));
    fs.rmSync(dir, { recursive: true });
  },
  async overwrite({ writeTool, recordFileSnapshot }) {
    const c = ctx();
    const target = path.join(root, "same.txt");
    fs.writeFileSync(target, content);
    for (let i = 0; i < CALLS; i++) {
      recordFileSnapshot(c.state, target, fs.statSync(target));
      check(await writeTool.execute({ file_path: target, content }, c));
    }
  },
  async edit({ editTool, recordFileSnapshot }) {
    const c = ctx();
    const target = path.join(root, "edit.txt");
    fs.writeFileSync(target, "a\n");
    for (let i = 0; i < CALLS; i++) {
      recordFileSnapshot(c.state, target, fs.statSync(target));
      const [from, to] = i % 2 === 0 ? ["a", "b"] : ["b", "a"];
      check(
        await editTool.execute(
          { file_path: target, old_string: from, new_string: to, replace_all: false },
          c,
        ),
      );
    }
  },
};

/** Wall and process CPU time (all threads: file system calls run on libuv's pool) of one batch, µs per call. */
async function timeBatch(fn) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const wallUs = ((performance.now() - t0) * 1000) / CALLS;
  const c = process.cpuUsage(c0);
  return { wallUs, cpuUs: (c.user + c.system) / CALLS };
}

const mid = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results = {};
try {
  for (const [name, run] of Object.entries(cases)) {
    const samples = Object.fromEntries(Object.keys(builds).map((b) => [b, { wallUs: [], cpuUs: [] }]));
    for (const tools of Object.values(builds)) await run(tools); // warm-up: page cache, JIT
    for (let i = 0; i < RUNS; i++) {
      for (const [b, tools] of Object.entries(builds)) {
        const t = await timeBatch(() => run(tools));
        samples[b].wallUs.push(t.wallUs);
        samples[b].cpuUs.push(t.cpuUs);
      }
    }
    results[name] = Object.fromEntries(
      Object.entries(samples).map(([b, s]) => [b, { wallUs: mid(s.wallUs), cpuUs: mid(s.cpuUs) }]),
    );
  }
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
console.log(`per call, µs (median of ${RUNS} batches of ${CALLS})`);
for (const [name, byBuild] of Object.entries(results)) {
  for (const [b, v] of Object.entries(byBuild)) {
    console.log(
      `  ${name.padEnd(10)} ${b.padEnd(9)} wall ${v.wallUs.toFixed(1).padStart(8)}  cpu ${v.cpuUs.toFixed(1).padStart(8)}`,
    );
  }
  if (byBuild.baseline) {
    const r = (k) => (byBuild.current[k] / byBuild.baseline[k]).toFixed(2);
    console.log(
      `  ${name.padEnd(10)} ratio     wall ${r("wallUs").padStart(8)}  cpu ${r("cpuUs").padStart(8)}`,
    );
  }
}
console.log(JSON.stringify(results));
