/**
 * Tools benchmark: Glob and Grep against ripgrep itself on a generated tree of 50,000+ files (ratios
 * in the same run), the built-in Grep fallback against ripgrep, and Read of the last 100 lines of a
 * 1 GB file (time and peak memory, in a child process). Imports the built code: run
 * `npx tsc -p tsconfig.build.json` first. Prints a table and a final JSON line.
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/tools");
const { globTool } = await import(pathToFileURL(path.join(dist, "glob.js")).href);
const { createGrepTool } = await import(pathToFileURL(path.join(dist, "grep.js")).href);
const { findRipgrep } = await import(pathToFileURL(path.join(dist, "ripgrep.js")).href);
const { walkFiles } = await import(pathToFileURL(path.join(dist, "walk.js")).href);

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const rg = findRipgrep();
const results = {};
const rows = [];

function ctx(cwd) {
  const state = { readFiles: new Map(), backgroundShells: new Map(), cleanups: [] };
  return {
    signal: new AbortController().signal,
    cwd,
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
  return times[Math.floor(times.length / 2)];
}

function runRg(args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(rg, args, { cwd, stdio: ["ignore", "pipe", "ignore"] });
    let bytes = 0;
    child.stdout.on("data", (c) => {
      bytes += c.length;
    });
    child.on("error", reject);
    child.on("close", () => resolve(bytes));
  });
}

/** 50 top dirs x 20 subdirs x 50 files = 50,000 searchable files, plus 2,000 in an ignored dir. */
function makeTree(root) {
  const exts = [".ts", ".js", ".md", ".json", ".py"];
  let n = 0;
  fs.mkdirSync(path.join(root, ".git"), { recursive: true });
  fs.writeFileSync(path.join(root, ".gitignore"), "node_modules/\n*.log\n");
  for (let a = 0; a < 50; a++) {
    for (let b = 0; b < 20; b++) {
      const d = path.join(root, `pkg${a}`, `mod${b}`);
      fs.mkdirSync(d, { recursive: true });
      for (let c = 0; c < 50; c++) {
        const needle = n % 97 === 0 ? "const needle = findNeedle();\n" : "";
        const body = `// file ${n}\nexport function f${n}(x) {\n  return x + ${n};\n}\n${needle}// TODO item ${n % 13}\n`;
        fs.writeFileSync(path.join(d, `f${c}${exts[n % exts.length]}`), body);
        n++;
      }
    }
  }
  const nm = path.join(root, "node_modules", "dep");
  fs.mkdirSync(nm, { recursive: true });
  for (let i = 0; i < 2000; i++) fs.writeFileSync(path.join(nm, `m${i}.ts`), "const needle = 1;\n");
  return n;
}

function row(name, ours, base, note = "") {
  rows.push({
    name,
    ours: ours.toFixed(1),
    baseline: base.toFixed(1),
    ratio: (ours / base).toFixed(2),
    note,
  });
  results[name] = {
    oursMs: +ours.toFixed(1),
    baselineMs: +base.toFixed(1),
    ratio: +(ours / base).toFixed(2),
  };
}

async function benchSearch(root) {
  const t0 = performance.now();
  const files = makeTree(root);
  console.log(`tree: ${files} files (+2,000 ignored) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  results.treeFiles = files;

  const glob = (pattern) => globTool.execute({ pattern }, ctx(root));
  const globOut = await glob("**/*.ts");
  if (!String(globOut.content).includes("truncated")) throw new Error("glob bench: expected a capped result");
  row(
    "Glob **/*.ts vs rg --files -g",
    await median(() => glob("**/*.ts")),
    await median(() => runRg(["--files", "-g", "**/*.ts"], root)),
    "ours stats matches for mtime",
  );
  row(
    "Glob **/* vs rg --files",
    await median(() => glob("**/*")),
    await median(() => runRg(["--files"], root)),
    "50,000 matches",
  );

  const walkMs = await median(() => walkFiles(root, {}, () => {}));
  results["walk only"] = +walkMs.toFixed(1);
  console.log(`walker alone (52,000 entries, .gitignore honoured): ${walkMs.toFixed(1)} ms`);

  const grepRg = createGrepTool({ backend: "rg" });
  const grepJs = createGrepTool({ backend: "builtin" });
  const queries = [
    ["files needle", { pattern: "needle" }, ["-l", "needle"]],
    [
      "content TODO item 7 -n",
      { pattern: "TODO item 7", output_mode: "content", head_limit: 0 },
      ["-n", "TODO item 7"],
    ],
    [
      "count f\\d+\\(x\\)",
      { pattern: "f\\d+\\(x\\)", output_mode: "count", head_limit: 0 },
      ["-c", "f\\d+\\(x\\)"],
    ],
  ];
  for (const [name, input, rgArgs] of queries) {
    const a = await grepRg.execute(input, ctx(root));
    const b = await grepJs.execute(input, ctx(root));
    if (a.content !== b.content) throw new Error(`backends differ on ${name}`);
    const base = await median(() => runRg(rgArgs, root));
    row(`Grep(rg) ${name} vs rg`, await median(() => grepRg.execute(input, ctx(root))), base);
    row(`Grep(builtin) ${name} vs rg`, await median(() => grepJs.execute(input, ctx(root))), base);
  }
}

async function benchRead(dir) {
  const readJs = path.join(dist, "read.js");
  if (!fs.existsSync(readJs)) {
    console.log("Read: dist/tools/read.js not built yet, skipped");
    results.read = "skipped";
    return;
  }
  const file = path.join(dir, "big.log");
  const line =
    "2024-01-01T00:00:00Z INFO request handled path=/api/items status=200 ms=12 trace=abcdef0123\n";
  const block = Buffer.from(line.repeat(Math.floor((1 << 20) / line.length)));
  const fd = fs.openSync(file, "w");
  let written = 0;
  let lines = 0;
  const perBlock = Math.floor((1 << 20) / line.length);
  while (written < 1 << 30) {
    written += fs.writeSync(fd, block);
    lines += perBlock;
  }
  fs.writeSync(fd, "the very last line\n");
  lines += 1;
  fs.closeSync(fd);
  const script = `
    const { readTool } = await import(${JSON.stringify(pathToFileURL(readJs).href)});
    const state = { readFiles: new Map(), backgroundShells: new Map(), cleanups: [] };
    const ctx = { signal: new AbortController().signal, cwd: "/", sessionId: "b", toolUseId: "b", state, onUpdate() {} };
    const t0 = performance.now();
    const r = await readTool.execute({ file_path: ${JSON.stringify(file)}, offset: ${lines - 99}, limit: 100 }, ctx);
    const ms = performance.now() - t0;
    const text = typeof r.content === "string" ? r.content : JSON.stringify(r.content);
    console.log(JSON.stringify({ ms, maxRssKb: process.resourceUsage().maxRSS, ok: !r.isError && text.includes("the very last line") }));`;
  const runs = [];
  for (let i = 0; i < 3; i++) {
    runs.push(
      JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" })),
    );
  }
  const idle = JSON.parse(
    execFileSync(
      process.execPath,
      ["-e", "console.log(JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS }))"],
      { encoding: "utf8" },
    ),
  );
  runs.sort((a, b) => a.ms - b.ms);
  const med = runs[1];
  const t0 = performance.now();
  execFileSync("tail", ["-n", "100", file], { maxBuffer: 1 << 20 });
  const tailMs = performance.now() - t0;
  fs.rmSync(file);
  results.read = {
    lastLinesOk: med.ok,
    ms: +med.ms.toFixed(1),
    peakRssMb: +(med.maxRssKb / 1024).toFixed(1),
    idleNodeRssMb: +(idle.maxRssKb / 1024).toFixed(1),
    tailMs: +tailMs.toFixed(1),
    fileLines: lines,
  };
  console.log(
    `Read last 100 lines of 1 GB (${lines} lines): ${med.ms.toFixed(0)} ms, peak RSS ${(med.maxRssKb / 1024).toFixed(0)} MB (idle node ${(idle.maxRssKb / 1024).toFixed(0)} MB), correct=${med.ok}; tail -n 100: ${tailMs.toFixed(1)} ms`,
  );
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), "goat-bench-tools-"));
try {
  if (rg) await benchSearch(path.join(root, "tree"));
  else console.log("ripgrep (rg) not on PATH: Glob/Grep comparisons skipped");
  fs.rmSync(path.join(root, "tree"), { recursive: true, force: true });
  await benchRead(root);
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
console.log(
  `\n${"benchmark".padEnd(44)} ${"ours ms".padStart(9)} ${"rg ms".padStart(9)} ${"ratio".padStart(6)}  note`,
);
for (const r of rows)
  console.log(
    `${r.name.padEnd(44)} ${r.ours.padStart(9)} ${r.baseline.padStart(9)} ${r.ratio.padStart(6)}  ${r.note}`,
  );
console.log(JSON.stringify({ bench: "tools", runs: RUNS, ...results }));
