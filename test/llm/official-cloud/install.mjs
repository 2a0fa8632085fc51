/**
 * Installs the official cloud clients of this folder (pinned by its lock file) when one is missing or
 * at another version (`test/support/pinned-install.mjs`). Measured: 178 packages, 112 MB, about 47 s
 * on first use; never part of Goat's own install.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensurePinnedInstall } from "../../support/pinned-install.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));

/** The folder's node_modules, installed if needed (waits for another process installing it). */
export async function ensureOfficialCloudClients() {
  await ensurePinnedInstall(HERE);
  return join(HERE, "node_modules");
}
