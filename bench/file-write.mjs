/**
 * File-write benchmark: the cost of one Write (a new 100-byte file, and an overwrite of a file just
 * read) and one Edit, each the median of RUNS batches of 1000 calls, in a temp directory. Imports the
 * built code (`npx tsc -p tsconfig.build.json` first), or the directory BENCH_TOOLS_DIR names (a build
 * of another revision, to compare). Prints a table and a final JSON line.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const dist =
  process.env.BENCH_TOOLS_DIR ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/tools");
const load = async (name) => import(pathToFileURL(path.join(dist, name)).href);
const { writeTool } = await load("write.js");
const { editTool } = await load("edit.js");
const { recordFileSnapshot } = await load("file-state.js");

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const CALLS = 1000;
// BENCH_DIR=/dev/shm (tmpfs) takes the disk flush out, leaving the cost of the code and its system calls.
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

/** Median wall time and process CPU time (all threads: the file system calls run on libuv's pool) per call, µs. */
async function median(fn) {
  await fn(); // warm-up: page cache, JIT
  const wall = [];
  const cpu = [];
  for (let i = 0; i < RUNS; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await fn();
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  const mid = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return { wallUs: (1000 * mid(wall)) / CALLS, cpuUs: (1000 * mid(cpu)) / CALLS };
}

const content = `${"x".repeat(99)}\n`;
let round = 0;
const results = {};
try {
  results.writeNew = await median(async () => {
    const c = ctx();
    const dir = path.join(root, `new-${round++}`);
    fs.mkdirSync(dir);
    for (let i = 0; i < CALLS; i++) {
      const r = await writeTool.execute({ file_path: path.join(dir, `f${i}.txt`), content }, c);
      if (r.isError) throw new Error(String(r.content));
    }
  });
  const target = path.join(root, "same.txt");
  fs.writeFileSync(target, content);
  results.overwrite = await median(async () => {
    const c = ctx();
    for (let i = 0; i < CALLS; i++) {
      recordFileSnapshot(c.state, target, fs.statSync(target));
      const r = await writeTool.execute({ file_path: target, content }, c);
      if (r.isError) throw new Error(String(r.content));
    }
  });
  results.edit = await median(async () => {
    const c = ctx();
    fs.writeFileSync(target, "a\n");
    for (let i = 0; i < CALLS; i++) {
      recordFileSnapshot(c.state, target, fs.statSync(target));
      const [from, to] = i % 2 === 0 ? ["a", "b"] : ["b", "a"];
      const r = await editTool.execute(
        { file_path: target, old_string: from, new_string: to, replace_all: false },
        c,
      );
      if (r.isError) throw new Error(String(r.content));
    }
  });
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
console.log("per call, µs (median of %d x %d calls)    wall      cpu", RUNS, CALLS);
for (const [k, v] of Object.entries(results))
  console.log(`  ${k.padEnd(38)} ${v.wallUs.toFixed(1).padStart(8)} ${v.cpuUs.toFixed(1).padStart(8)}`);
console.log(JSON.stringify(results));
