/**
 * Helpers for the CLI tests: build `dist/` once when it is older than the sources, run the program
 * users run (the package's bin, `node dist/bin/goat.js`, the esbuild bundle) as a real child process,
 * and isolate each run in a temp GOAT_HOME and cwd.
 */

import { spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { buildDist, distIsStale } from "../support/build-dist.js";
import { type MockProvider, startMockProvider } from "../support/mock-provider.js";

/** The repository root. */
export const ROOT = resolve(import.meta.dirname, "../..");
/** The built entry of the CLI: the bundle `npm run build` makes (`scripts/bundle-cli.mjs`). */
export const CLI = join(ROOT, "dist/bin/goat.js");

/**
 * Builds `dist/` unless it is newer than every file under `src/`. The global setup has built it for
 * the run; this catches sources edited since (a watch-mode rerun).
 */
export function buildIfStale(): void {
  if (distIsStale()) buildDist();
}

/** A temp folder removed by `cleanup()`. */
export function tempDir(prefix: string): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** The outcome of one CLI run. */
export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** An environment without the caller's provider settings, plus `extra`. */
export function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || /^(ANTHROPIC_|OPENAI_|GOAT_|GEMINI_|GOOGLE_|AZURE_|NO_COLOR)/.test(k)) continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

/** Runs the CLI to its end. `stdin` is written then closed (or left open with `keepStdin`). */
export function runCli(
  args: string[],
  options: {
    env: Record<string, string>;
    cwd?: string;
    stdin?: string;
    timeoutMs?: number;
    onSpawn?: (child: ReturnType<typeof spawn>) => void;
  },
): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd ?? ROOT,
      env: options.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b: Buffer) => {
      stdout += b.toString();
    });
    child.stderr.on("data", (b: Buffer) => {
      stderr += b.toString();
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`goat ${args.join(" ")} did not exit in time; stdout: ${stdout}; stderr: ${stderr}`));
    }, options.timeoutMs ?? 15_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
    if (options.onSpawn) options.onSpawn(child);
    else child.stdin.end(options.stdin ?? "");
  });
}

/** Parses JSON lines, failing with the line that is not JSON. */
export function jsonLines(text: string): any[] {
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => {
      try {
        return JSON.parse(l);
      } catch {
        throw new Error(`not a JSON line: ${l}`);
      }
    });
}

/** What each CLI test gets: the mock provider, a fresh GOAT_HOME and cwd, and the CLI's environment. */
export interface CliFixture {
  mock: MockProvider;
  home: { path: string; cleanup: () => void };
  work: { path: string; cleanup: () => void };
  env: Record<string, string>;
}

/**
 * Registers the hooks every CLI test file needs: builds the bin if stale, starts one mock provider for
 * the file, and gives each test a fresh home and cwd (settings and sessions never leak between tests).
 */
export function useCliFixture(prefix: string): CliFixture {
  const fx = {} as CliFixture;
  beforeAll(async () => {
    buildIfStale();
    fx.mock = await startMockProvider();
  }, 120_000);
  afterAll(async () => {
    await fx.mock.close();
  });
  beforeEach(() => {
    fx.home = tempDir(`${prefix}-home-`);
    fx.work = tempDir(`${prefix}-work-`);
    fx.env = cleanEnv({
      ANTHROPIC_BASE_URL: fx.mock.anthropicBaseURL,
      ANTHROPIC_API_KEY: "test",
      GOAT_HOME: fx.home.path,
      // Claude Code's user folder too: the machine's ~/.claude/settings.json must not reach a test.
      CLAUDE_CONFIG_DIR: join(fx.home.path, "claude"),
      // The first model call waits this long for MCP servers (Claude Code's variable; default 5 s):
      // a stdio server starting Node on a loaded machine can take longer, and tests that expect it
      // "connected" in system/init would see it "pending".
      MCP_TIMEOUT: "60000",
    });
    // A test that failed before its model calls leaves its replies queued: they must not answer the next.
    fx.mock.clear();
  });
  afterEach(() => {
    fx.home.cleanup();
    fx.work.cleanup();
  });
  return fx;
}

/**
 * Marks the fixture's work folder trusted (as answering "trust" in the interactive goat would), so
 * print mode applies its own settings files' allow rules, hooks, env and servers.
 */
export function trustWorkFolder(fx: CliFixture): void {
  writeFileSync(
    join(fx.home.path, "trust.json"),
    JSON.stringify({ trustedFolders: { [realpathSync(fx.work.path)]: {} } }),
  );
}
