/**
 * Installs the official provider clients of test/llm/official/ (their own small package, pinned by
 * its lock file) when one is missing or at another version. One process at a time: the `.installing`
 * lock (an atomic mkdir) is held while npm writes, and whoever finds it waits.
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

/** Installs the clients unless the pinned versions are there (waiting for another installer). */
export async function ensureOfficialClientsInstalled() {
  while (existsSync(LOCK) || !allInstalled()) {
    try {
      mkdirSync(LOCK);
    } catch {
      // Another process is installing; a lock older than the time limit was left by a killed run.
      const age = existsSync(LOCK) ? Date.now() - statSync(LOCK).mtimeMs : 0;
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
}

/** Loads an installed client by package name. */
export async function loadOfficialClient(name) {
  await ensureOfficialClientsInstalled();
  const { createRequire } = await import("node:module");
  const resolved = createRequire(join(HERE, "package.json")).resolve(name);
  return import(resolved);
}
