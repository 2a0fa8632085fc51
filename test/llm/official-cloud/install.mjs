/**
 * Installs the official cloud clients of this folder (pinned by its lock file) when one is missing or
 * at another version. One process at a time: an atomic `mkdir` lock, as test/sdk/install.mjs does.
 * Measured: 178 packages, 112 MB, about 47 s on first use; never part of Goat's own install.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { registryEnv } from "../../support/extra-ca-certs.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const LOCK = join(HERE, ".installing");
const INSTALL_TIMEOUT_MS = 300_000;
const PINNED = Object.entries(JSON.parse(readFileSync(join(HERE, "package.json"), "utf8")).dependencies);

function installedVersion(name) {
  try {
    return JSON.parse(readFileSync(join(HERE, "node_modules", name, "package.json"), "utf8")).version;
  } catch {
    return undefined;
  }
}

const allInstalled = () => PINNED.every(([name, version]) => installedVersion(name) === version);

/** The folder's node_modules, installed if needed (waits for another process installing it). */
export async function ensureOfficialCloudClients() {
  while (existsSync(LOCK) || !allInstalled()) {
    try {
      mkdirSync(LOCK);
    } catch {
      let age = 0;
      try {
        age = Date.now() - statSync(LOCK).mtimeMs;
      } catch {}
      if (age > INSTALL_TIMEOUT_MS) rmSync(LOCK, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    try {
      if (!allInstalled()) {
        await promisify(execFile)("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], {
          cwd: HERE,
          timeout: INSTALL_TIMEOUT_MS,
          env: registryEnv(),
        });
      }
    } finally {
      rmSync(LOCK, { recursive: true, force: true });
    }
  }
  return join(HERE, "node_modules");
}
