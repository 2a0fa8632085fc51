/**
 * Benchmark: what `import("goat-agent")` costs a program, cold (a new Node process each time).
 * Measured beside, in the same run and interleaved so machine load hits all alike (median of N runs):
 * - `node -e 0`: Node's own start-up, the floor;
 * - `import("zod")`: the schema library alone, for scale;
 * - `import(dist/index.js)`: Goat's root, as a user's `import { query } from "goat-agent"`.
 * Goat's figure is reported as wall time, as time above the floor, and as ratios to the floor and to
 * zod's; the children also time the import itself (steadier than spawn-to-exit on a loaded machine).
 * One more run lists the packages the import loaded: zod and the MCP SDK must not be among them (both
 * load only when a program uses them). Target: the root's import under 100 ms on a quiet machine.
 *
 *   npm run build && node bench/import.mjs [runs=20]
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { median } from "./support/measure.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const RUNS = Number(process.argv[2] ?? 20);
const entry = join(root, "dist/index.js");
if (!existsSync(entry)) {
  console.error(`${entry} is missing: run npm run build first`);
  process.exit(1);
}

/** A script that imports `specifier` and prints how long the import took inside the process. */
const timed = (specifier) =>
  `const t = performance.now(); await import(${JSON.stringify(specifier)}); console.log(performance.now() - t);`;

const ZOD = 'import("zod")';
const GOAT = 'import("goat-agent")';
const cases = {
  "node -e 0": ["-e", "0"],
  [ZOD]: ["--input-type=module", "-e", timed("zod")],
  [GOAT]: ["--input-type=module", "-e", timed(pathToFileURL(entry).href)],
};

/** Spawns node once, fails loudly if it failed, and returns what it printed. */
function spawnNode(args) {
  const child = spawnSync(process.execPath, args, { cwd: root, encoding: "utf8" });
  if (child.status !== 0) throw new Error(`node ${args.join(" ")} failed: ${child.stderr}`);
  return child.stdout;
}

const walls = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
const insides = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let i = 0; i < RUNS; i++) {
  for (const [name, args] of Object.entries(cases)) {
    const t0 = performance.now();
    const inside = Number.parseFloat(spawnNode(args));
    walls[name].push(performance.now() - t0);
    if (Number.isFinite(inside)) insides[name].push(inside);
  }
}

// Which packages the root import loads, found in one extra, untimed run: a loader hook (it slows
// loading, so the timed runs have none) appends every URL Node loads to a file; a path under
// node_modules/<name> means that package was loaded.
const listFile = join(mkdtempSync(join(os.tmpdir(), "goat-bench-import-")), "loaded.txt");
const hooks = `import { appendFileSync } from "node:fs";
export async function load(url, context, next) { appendFileSync(${JSON.stringify(listFile)}, url + "\\n"); return next(url, context); }`;
const register = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
spawnNode(["--import", `data:text/javascript,${encodeURIComponent(register)}`, ...cases[GOAT]]);
const loadedUrls = readFileSync(listFile, "utf8").split("\n").filter(Boolean);
const loaded = [
  ...new Set(loadedUrls.map((url) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1]).filter(Boolean)),
].sort();
const files = loadedUrls.filter((url) => url.startsWith("file:")).length;
rmSync(dirname(listFile), { recursive: true, force: true });

const round = (x) => Math.round(x * 10) / 10;
const floor = median(walls["node -e 0"]);
const above = (name) => median(walls[name]) - floor;
for (const [name, xs] of Object.entries(walls)) {
  const inside = insides[name].length > 0 ? `; the import itself ${round(median(insides[name]))} ms` : "";
  console.error(
    `${name.padEnd(22)} median ${round(median(xs))} ms wall, ${round(median(xs) - floor)} ms above node -e 0${inside}`,
  );
}
console.error(
  `files the root import loaded: ${files}; packages: ${loaded.length ? loaded.join(", ") : "none"}`,
);
console.error(
  `load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores (wall figures are noisy on a loaded machine)`,
);
console.log(
  JSON.stringify({
    bench: "import",
    runs: RUNS,
    nodeFloorMs: round(floor),
    zodAboveFloorMs: round(above(ZOD)),
    goatAboveFloorMs: round(above(GOAT)),
    goatWallOverFloor: round(median(walls[GOAT]) / floor),
    goatOverZodAboveFloor: round(above(GOAT) / above(ZOD)),
    zodImportInsideMs: round(median(insides[ZOD])),
    goatImportInsideMs: round(median(insides[GOAT])),
    goatOverZodInside: round(median(insides[GOAT]) / median(insides[ZOD])),
    filesLoaded: files,
    loadedPackages: loaded,
    loadAvg: round(os.loadavg()[0]),
  }),
);
