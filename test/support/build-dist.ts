/**
 * The build of `dist/` the tests run against: the program (`dist/bin/goat.js`), the library bundles
 * and the child processes' imports. `npm run build` makes it, here as for a user.
 *
 * Stale means `dist/bin/goat.js` (written last by the build) is older than a file under `src/`. The
 * global setup builds when it is, even when GOAT_SKIP_BUILD says the caller built: a build started
 * later, by a test file or by the pack test's `npm pack` (its `prepare` step makes the same check),
 * would rewrite `dist/` while other files run the program from it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** True when `dist/bin/goat.js` is missing or older than a file under `src/`. */
export function distIsStale(): boolean {
  const cli = join(ROOT, "dist/bin/goat.js");
  return !existsSync(cli) || statSync(cli).mtimeMs < newestMtime(join(ROOT, "src"));
}

/** Runs `npm run build` (its output shown: a type error fails the run here, with its message). */
export function buildDist(): void {
  execFileSync("npm", ["run", "build", "--silent"], { cwd: ROOT, stdio: "inherit" });
}
