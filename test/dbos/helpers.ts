/**
 * Worker processes for the durable-session tests: each runs test/dbos/fixtures/worker.mjs (the built
 * package) against the test's database and mock provider. Tests end them by PID only.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { cachedBundle, installedVersion } from "../support/cached-bundle.js";
import type { MockRequest } from "../support/mock-provider.js";

const WORKER_SCRIPT = resolve(import.meta.dirname, "fixtures/worker.mjs");
const ROOT = resolve(import.meta.dirname, "../..");
let bundledWorker: string | undefined;

/**
 * worker.mjs bundled with what it imports (the built package, DBOS, pg, zod) into one file
 * (test/support/cached-bundle.ts): a worker started from about 470 modules spent about 140 ms more CPU
 * loading them (340 -> 200 ms a start; the dbos tests start nine: their processes' CPU 15.8 -> 13 s).
 * Keyed by the fixture, the package's entry files (whose imports name its chunks by content hash) and
 * the DBOS, pg and zod versions. DBOS's optional telemetry packages stay outside, as unbundled: it
 * requires them only when asked.
 */
function workerBundle(): string {
  bundledWorker ??= cachedBundle(
    "dbos-worker",
    ".mjs",
    [
      ...[WORKER_SCRIPT, "dist/dbos/index.js", "dist/index.js"].map((file) =>
        readFileSync(resolve(ROOT, file)),
      ),
      ...["@dbos-inc/dbos-sdk", "pg", "zod"].map(installedVersion),
    ],
    {
      entryPoints: [WORKER_SCRIPT],
      platform: "node",
      format: "esm",
      target: "node20",
      external: ["@opentelemetry/*", "winston", "winston-transport"],
      // CommonJS dependencies (pg, DBOS) call require() on Node's built-ins.
      banner: {
        js: 'import { createRequire as __fixtureRequire } from "node:module"; const require = __fixtureRequire(import.meta.url);',
      },
    },
  );
  return bundledWorker;
}

/** A worker process the test started. */
export interface WorkerProcess {
  readonly id: string;
  readonly child: ChildProcess;
  /** The DBOS application version it runs (as it printed it). */
  readonly version: string;
  /** Everything it printed (stdout and stderr). */
  output(): string;
  /** SIGKILL: no cleanup of any kind, as when a machine dies. */
  kill9(): Promise<void>;
  /** SIGTERM and wait (a graceful stop). */
  stop(): Promise<void>;
}

/** Starts a worker and waits until it has launched DBOS and joined the queue. */
export async function startWorker(id: string, env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [workerBundle()], {
    env: { ...process.env, ...env, WORKER_ID: id, ANTHROPIC_API_KEY: "test-key" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d) => {
    output += d;
  });
  child.stderr?.on("data", (d) => {
    output += d;
  });
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`worker ${id} did not start:\n${output}`)), 30_000);
    const check = () => {
      if (output.includes(`ready ${id}`)) {
        clearTimeout(timer);
        ready();
      }
    };
    child.stdout?.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`worker ${id} exited (${code}) before it was ready:\n${output}`));
    });
  });
  return {
    id,
    child,
    version: new RegExp(`ready ${id} version (\\S+)`).exec(output)?.[1] ?? "",
    output: () => output,
    async kill9() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** Polls `check` every 20 ms until it returns a truthy value, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The lines of a file (none when it does not exist yet). */
export function linesOf(path: string): string[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "");
}

/** How many tool results the request's conversation holds (which turn of a scripted session it is). */
export function toolResultCount(request: MockRequest): number {
  let count = 0;
  for (const message of request.body?.messages ?? []) {
    if (Array.isArray(message.content)) {
      for (const block of message.content) if (block.type === "tool_result") count++;
    }
  }
  return count;
}

/** The text of the first user message of the request (which session it belongs to). */
export function firstPrompt(request: MockRequest): string {
  const first = request.body?.messages?.[0];
  if (typeof first?.content === "string") return first.content;
  return first?.content?.find((b: { type: string }) => b.type === "text")?.text ?? "";
}

/** The types of a session's messages, without informational notes (e.g. "no price known for the model"). */
export function kinds(messages: Array<{ type: string; subtype?: string }>): string[] {
  return messages.filter((m) => !(m.type === "system" && m.subtype === "informational")).map((m) => m.type);
}

/** The tool results' texts of the request's conversation, in order. */
export function resultTexts(request: MockRequest): string[] {
  const texts: string[] = [];
  for (const message of request.body?.messages ?? []) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (block.type !== "tool_result") continue;
      const content = block.content as string | Array<{ type: string; text?: string }>;
      texts.push(typeof content === "string" ? content : content.map((b) => b.text ?? "").join(""));
    }
  }
  return texts;
}
