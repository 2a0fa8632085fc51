/**
 * Builds `dist/` once before the tests that run the real CLI or a child process against the built
 * package. `npm test` builds first and sets GOAT_SKIP_BUILD so the work is not done twice.
 */
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";

export default function setup(): void {
  if (process.env.GOAT_SKIP_BUILD) return;
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { stdio: "inherit" });
}
