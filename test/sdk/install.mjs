/**
 * Installs the official Claude Agent SDK of test/sdk/ and Zed's Claude ACP adapter (its own small
 * package, pinned by its lock file) when one is missing or at another version, with
 * `--omit=optional`: the SDK's native Claude binary is a large per-platform package the tests never
 * run (`test/support/pinned-install.mjs`: one process at a time, waiting for another installer).
 *
 * `npm test` runs this among its checks, before the tests: the install is set-up (110 packages, about
 * 125 MB with the adapter, whose own copy of the SDK carries ripgrep builds; 7-8 s of CPU), and done
 * inside the test run it competed with the first test files.
 * The test helpers call it again (test/sdk/claude-sdk.ts), which finds the package installed; a
 * lone `vitest run` on a fresh clone still installs it there.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensurePinnedInstall } from "../support/pinned-install.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));

/** The SDK's entry module, once installed. */
export const CLAUDE_SDK_ENTRY = join(HERE, "node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs");

/** Zed's ACP adapter for Claude (`claude-agent-acp`), which runs its own pinned copy of the SDK. */
export const ACP_ADAPTER_ENTRY = join(HERE, "node_modules/@zed-industries/claude-agent-acp/dist/index.js");

/** Installs the SDK package unless the pinned version is there (waiting for another installer). */
export async function ensureClaudeSdkInstalled() {
  await ensurePinnedInstall(HERE, ["--omit=optional"]);
  if (!existsSync(CLAUDE_SDK_ENTRY)) throw new Error(`the Claude Agent SDK was not installed in ${HERE}`);
}
