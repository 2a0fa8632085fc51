/**
 * Builds `dist/` once before the tests that run the real CLI or a child process against the built
 * package. `npm test` builds first and sets GOAT_SKIP_BUILD so the work is not done twice. After tsc,
 * the library's entry files are bundled again (`scripts/bundle-lib.mjs`): tsc writes its own
 * `dist/index.js` and subpath files over the bundles, and the package (the pack test) ships only the
 * bundles and their chunks.
 */
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";

export default function setup(): void {
  if (process.env.GOAT_SKIP_BUILD) return;
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { stdio: "inherit" });
  execFileSync(process.execPath, ["scripts/bundle-lib.mjs"], { stdio: "inherit" });
}
