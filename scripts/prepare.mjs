/**
 * npm's `prepare` step: builds `dist/` so that installing Goat from a git URL (which has no `dist/`)
 * gives a package that imports and a `goat` that runs. npm runs it after installing the dev
 * dependencies of a git install, and also after a plain `npm install` in a checkout; there the build
 * is skipped when `dist/` is already newer than every source file, so a second install costs nothing.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { distIsStale } from "./dist-freshness.mjs";

if (distIsStale()) {
  execFileSync("npm", ["run", "build"], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    stdio: "inherit",
  });
}
