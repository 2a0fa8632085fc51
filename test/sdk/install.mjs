/**
 * Installs the official Claude Agent SDK of test/sdk/ and Zed's Claude ACP adapter (its own small
 * package, pinned by its lock file) when one is missing or at another version, with
 * `--omit=optional`: the SDK's native Claude binary is a large per-platform package the tests never
 * run. One process at a time: the `.installing` lock (an atomic mkdir) is held while npm writes, and
 * whoever finds it waits.
 *
 * `npm test` runs this among its checks, before the tests: the install is set-up (110 packages, about
 * 125 MB with the adapter, whose own copy of the SDK carries ripgrep builds; 7-8 s of CPU), and done
 * inside the test run it competed with the first test files.
 * The test helpers call it again (test/sdk/claude-sdk.ts), which finds the package installed; a
 * lone `vitest run` on a fresh clone still installs it there.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { registryEnv } from "../support/extra-ca-certs.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const LOCK = join(HERE, ".installing");
const INSTALL_TIMEOUT_MS = 300_000;

/** The SDK's entry module, once installed. */
export const CLAUDE_SDK_ENTRY = join(HERE, "node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs");

/** Zed's ACP adapter for Claude (`claude-agent-acp`), which runs its own pinned copy of the SDK. */
export const ACP_ADAPTER_ENTRY = join(HERE, "node_modules/@zed-industries/claude-agent-acp/dist/index.js");

/** The packages and versions the tests pin (the package's dependencies, fixed by its lock file). */
const PINNED = Object.entries(JSON.parse(readFileSync(join(HERE, "package.json"), "utf8")).dependencies);

function installedVersion(name) {
  try {
    return JSON.parse(readFileSync(join(HERE, "node_modules", name, "package.json"), "utf8")).version;
  } catch {
    return undefined;
  }
}

/** Whether every pinned package is installed at its version. */
const allInstalled = () => PINNED.every(([name, version]) => installedVersion(name) === version);

function lockAgeMs() {
  try {
    return Date.now() - statSync(LOCK).mtimeMs;
  } catch {
    return 0;
  }
}

/** Installs the SDK package unless the pinned version is there (waiting for another installer). */
export async function ensureClaudeSdkInstalled() {
  // Installed means the right version and nobody writing it: npm writes package.json before the
  // rest, so a version seen while another process holds the lock may belong to a half-written copy.
  while (existsSync(LOCK) || !allInstalled()) {
    try {
      mkdirSync(LOCK);
    } catch {
      // Another process is installing: wait for it. A lock older than the install's time limit was
      // left by a killed run.
      if (lockAgeMs() > INSTALL_TIMEOUT_MS) rmSync(LOCK, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    try {
      if (!allInstalled()) {
        await promisify(execFile)(
          "npm",
          ["install", "--omit=optional", "--no-audit", "--no-fund", "--loglevel=error"],
          { cwd: HERE, timeout: INSTALL_TIMEOUT_MS, env: registryEnv() },
        );
      }
    } finally {
      rmSync(LOCK, { recursive: true, force: true });
    }
  }
  if (!existsSync(CLAUDE_SDK_ENTRY)) throw new Error(`the Claude Agent SDK was not installed in ${HERE}`);
}
