/**
 * Installs a test sub-package (a folder with its own package.json and lock file: the official Claude
 * Agent SDK in test/sdk/, the providers' official clients in test/llm/official*) when one of its pinned
 * dependencies is missing or at another version. One process at a time: the `.installing` lock (an
 * atomic mkdir) is held while npm writes, and whoever finds it waits; a lock older than the install's
 * time limit was left by a killed run. Installed means the right versions and nobody writing them: npm
 * writes package.json before the rest, so a version seen while another process holds the lock may
 * belong to a half-written copy.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { registryEnv } from "./extra-ca-certs.mjs";

const INSTALL_TIMEOUT_MS = 300_000;

/** Installs `dir`'s pinned dependencies unless they are there; `npmFlags` are added to `npm install`. */
export async function ensurePinnedInstall(dir, npmFlags = []) {
  const lock = join(dir, ".installing");
  const pinned = Object.entries(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).dependencies);
  const installedVersion = (name) => {
    try {
      return JSON.parse(readFileSync(join(dir, "node_modules", name, "package.json"), "utf8")).version;
    } catch {
      return undefined;
    }
  };
  const allInstalled = () => pinned.every(([name, version]) => installedVersion(name) === version);
  const lockAgeMs = () => {
    try {
      return Date.now() - statSync(lock).mtimeMs;
    } catch {
      return 0;
    }
  };
  while (existsSync(lock) || !allInstalled()) {
    try {
      mkdirSync(lock);
    } catch {
      if (lockAgeMs() > INSTALL_TIMEOUT_MS) rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    try {
      if (!allInstalled()) {
        await promisify(execFile)(
          "npm",
          ["install", ...npmFlags, "--no-audit", "--no-fund", "--loglevel=error"],
          {
            cwd: dir,
            timeout: INSTALL_TIMEOUT_MS,
            env: registryEnv(),
          },
        );
      }
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}
