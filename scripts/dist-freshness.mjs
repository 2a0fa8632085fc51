/**
 * Whether `dist/` is older than the sources: the CLI bundle (`dist/bin/goat.js`, which `npm run build`
 * writes last) against the newest file under `src/`. Read by npm's `prepare` step (scripts/prepare.mjs)
 * and by the tests' global setup (test/support/build-dist.ts), which build when it is.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The newest modification time of any file below `dir` (0 when it does not exist). */
function newestMtime(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  let newest = 0;
  for (const entry of entries) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** True when `dist/bin/goat.js` is missing or older than a file under `src/`. */
export function distIsStale() {
  let built;
  try {
    built = statSync(join(root, "dist/bin/goat.js")).mtimeMs;
  } catch {
    return true;
  }
  return built < newestMtime(join(root, "src"));
}
