/**
 * The build of `dist/` the tests run against: the program (`dist/bin/goat.js`), the library bundles
 * and the child processes' imports. `npm run build` makes it, here as for a user.
 *
 * Stale (scripts/dist-freshness.mjs, the check npm's `prepare` step makes too) means
 * `dist/bin/goat.js`, written last by the build, is older than a file under `src/`. The global setup
 * builds when it is, even when GOAT_SKIP_BUILD says the caller built: a build started later, by a
 * test file or by the pack test's `npm pack` (its `prepare` step), would rewrite `dist/` while other
 * files run the program from it.
 */
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";

export { distIsStale } from "../../scripts/dist-freshness.mjs";

const ROOT = resolve(import.meta.dirname, "../..");

/** Runs `npm run build` (its output shown: a type error fails the run here, with its message). */
export function buildDist(): void {
  execFileSync("npm", ["run", "build", "--silent"], { cwd: ROOT, stdio: "inherit" });
}
