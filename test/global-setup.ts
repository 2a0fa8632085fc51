/**
 * Starts installing the Claude Agent SDK of test/sdk/ when a fresh clone has none (a network-bound
 * `npm install` of several seconds, done while the first files run; the SDK tests wait for it through
 * its lock), and builds `dist/` once before the tests that run the real CLI or a child process
 * against the built package. `npm test` builds first and sets GOAT_SKIP_BUILD so the work is not done
 * twice. After tsc, the library's entry files are bundled again (`scripts/bundle-lib.mjs`): tsc writes
 * its own `dist/index.js` and subpath files over the bundles, and the package (the pack test) ships
 * only the bundles and their chunks.
 */
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { ensureClaudeSdkInstalled } from "./sdk/claude-sdk.js";

export default function setup(): () => Promise<void> {
  // A failed install is reported by the SDK tests, which try again; the teardown waits for this one
  // so that the run never ends with the package half written.
  const sdkInstall = ensureClaudeSdkInstalled().catch(() => {});
  const teardown = () => sdkInstall;
  if (process.env.GOAT_SKIP_BUILD) return teardown;
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { stdio: "inherit" });
  execFileSync(process.execPath, ["scripts/bundle-lib.mjs"], { stdio: "inherit" });
  return teardown;
}
