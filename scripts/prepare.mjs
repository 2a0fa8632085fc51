/**
 * npm's `prepare` step: builds `dist/` so that installing Goat from a git URL (which has no `dist/`)
 * gives a package that imports and a `goat` that runs. npm runs it after installing the dev
 * dependencies of a git install, and also after a plain `npm install` in a checkout; there the build
 * is skipped when `dist/` is already newer than every source file, so a second install costs nothing.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The newest modification time of any file below `dir` (0 when it does not exist). */
function newest(dir) {
  let latest = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

function builtAt() {
  try {
    return statSync(join(root, "dist/bin/goat.js")).mtimeMs;
  } catch {
    return 0;
  }
}

if (builtAt() > newest(join(root, "src"))) process.exit(0);
execFileSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
