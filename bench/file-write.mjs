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
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-bench-write-")));

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

async function median(fn) {
  await fn(); // warm-up: page cache, JIT
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] / CALLS;
}

const content = `${"x".repeat(99)}\n`;
let round = 0;
const results = {};
try {
  results.writeNewUs =
    1000 *
    (await median(async () => {
      const c = ctx();
      const dir = path.join(root, `new-${round++}`);
      fs.mkdirSync(dir);
      for (let i = 0; i < CALLS; i++) {
        const r = await writeTool.execute({ file_path: path.join(dir, `f${i}.txt`), content }, c);
        if (r.isError) throw new Error(String(r.content));
      }
    }));
  const target = path.join(root, "same.txt");
  fs.writeFileSync(target, content);
  results.overwriteUs =
    1000 *
    (await median(async () => {
      const c = ctx();
      for (let i = 0; i < CALLS; i++) {
        recordFileSnapshot(c.state, target, fs.statSync(target));
        const r = await writeTool.execute({ file_path: target, content }, c);
        if (r.isError) throw new Error(String(r.content));
      }
    }));
  results.editUs =
    1000 *
    (await median(async () => {
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
    }));
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
console.log("per call (µs, median of %d x %d calls)", RUNS, CALLS);
for (const [k, v] of Object.entries(results)) console.log(`  ${k.padEnd(12)} ${v.toFixed(1)}`);
console.log(JSON.stringify(results));
