/**
 * Starts installing the Claude Agent SDK of test/sdk/ when it is missing (`npm test` installs it
 * before the tests, so this is for a lone `vitest run` on a fresh clone: the install then runs while
 * the first files do, and the SDK tests wait for it through its lock), and builds `dist/` once before
 * the tests that run the real CLI or a child process against the built package (`npm run build`).
 * `npm test` builds first and sets GOAT_SKIP_BUILD so the work is not done twice, unless a source file
 * is newer than the build: then it builds all the same (test/support/build-dist.ts says why).
 *
 * It also makes the directory of the run's shared PostgreSQL cluster (test/support/shared-postgres.ts)
 * and provides its path to the tests; the cluster itself is started by the first test file that needs
 * it, and the teardown stops it (if one was started) and removes the directory (so does an exit hook
 * when the run is interrupted).
 *
 * And it moves NODE_EXTRA_CA_CERTS aside (test/support/extra-ca-certs.mjs): Node 20 parses that
 * bundle at the start of every process, and the run's processes talk only to local servers.
 */
import type { TestProject } from "vitest/node";
import { ensureClaudeSdkInstalled } from "./sdk/install.mjs";
import { buildDist, distIsStale } from "./support/build-dist.js";
import { moveExtraCaCertsAside } from "./support/extra-ca-certs.mjs";
import { makeSharedPostgresDir, stopSharedPostgres } from "./support/shared-postgres.js";

export default function setup(project: TestProject): () => Promise<void> {
  // A failed install is reported by the SDK tests, which try again; the teardown waits for this one
  // so that the run never ends with the package half written.
  const sdkInstall = ensureClaudeSdkInstalled().catch(() => {});
  // Before the workers start: they and the processes they start read no certificate bundle.
  moveExtraCaCertsAside();
  // GOAT_SKIP_BUILD: the caller (npm test) has just built. Built anyway when the sources are newer.
  if (!process.env.GOAT_SKIP_BUILD || distIsStale()) buildDist();
  // Made after the build, so that a failed build (no teardown) leaves no directory behind.
  const sharedPostgresDir = makeSharedPostgresDir();
  project.provide("sharedPostgresDir", sharedPostgresDir);
  // An interrupted run (Ctrl-C: vitest exits without the teardown) still stops the cluster; stopping
  // is synchronous, as an exit handler must be.
  const stopOnExit = () => {
    try {
      stopSharedPostgres(sharedPostgresDir);
    } catch {}
  };
  process.once("exit", stopOnExit);
  return async () => {
    process.off("exit", stopOnExit);
    try {
      stopSharedPostgres(sharedPostgresDir);
    } finally {
      await sdkInstall;
    }
  };
}
