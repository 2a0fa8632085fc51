/**
 * Benchmark: the layer check that `npm run lint` runs on every `npm test` (dependency-cruiser over src/
 * with .dependency-cruiser.cjs), beside the rest of the lint step (`biome check .`) in the same run,
 * alternating, median of N runs each. The ratio says what the layer rules add to the lint step.
 *
 *   node bench/layer-check.mjs [runs=5]
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const RUNS = Number(process.argv[2] ?? 5);
const bin = (name) => join(root, "node_modules", ".bin", name);

function timed(command, args) {
  const start = process.hrtime.bigint();
  const run = spawnSync(command, args, { cwd: root, encoding: "utf8" });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (run.status !== 0) throw new Error(`${command} failed (${run.status}): ${run.stdout}${run.stderr}`);
  return ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const biome = [];
const layers = [];
for (let i = 0; i < RUNS; i++) {
  biome.push(timed(bin("biome"), ["check", "."]));
  layers.push(timed(bin("depcruise"), ["src", "--config", ".dependency-cruiser.cjs"]));
}
const summary = {
  bench: "layer-check",
  runs: RUNS,
  biomeCheckMs: Math.round(median(biome)),
  layerCheckMs: Math.round(median(layers)),
  ratioVsBiome: +(median(layers) / median(biome)).toFixed(2),
};
console.log(JSON.stringify(summary));
