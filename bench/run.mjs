/**
 * Runs every benchmark in bench/ (each `*.mjs` except this one) in sequence, each in its own process,
 * and prints each one's final JSON line (its summary). A failing benchmark is reported and the rest run.
 *
 *   npx tsc -p tsconfig.build.json && node bench/run.mjs
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL(".", import.meta.url));
const me = basename(fileURLToPath(import.meta.url));
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".mjs") && f !== me)
  .sort();
let failed = 0;
for (const file of files) {
  const run = spawnSync(process.execPath, [join(dir, file)], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = (run.stdout ?? "").trim().split("\n");
  const last = lines[lines.length - 1] ?? "";
  if (run.status !== 0 || !last.startsWith("{")) {
    failed++;
    console.log(
      JSON.stringify({ bench: file, error: `exit ${run.status ?? run.signal}`, output: last.slice(0, 500) }),
    );
  } else console.log(last);
}
process.exit(failed > 0 ? 1 : 0);
