/**
 * Installs the official provider clients of test/llm/official/ (their own small package, pinned by
 * its lock file) when one is missing or at another version (`test/support/pinned-install.mjs`).
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensurePinnedInstall } from "../../support/pinned-install.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));

/** Installs the clients unless the pinned versions are there (waiting for another installer). */
export async function ensureOfficialClientsInstalled() {
  await ensurePinnedInstall(HERE);
}

/** Loads an installed client by package name. */
export async function loadOfficialClient(name) {
  await ensureOfficialClientsInstalled();
  const { createRequire } = await import("node:module");
  const resolved = createRequire(join(HERE, "package.json")).resolve(name);
  return import(resolved);
}
