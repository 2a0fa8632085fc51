/**
 * The durable-session commands of the real `goat` bin: `goat worker` against DATABASE_URL in one
 * process, `goat submit` (following to the end, or detached), `goat follow` from another process,
 * `goat cancel`, and the clear errors for a missing DATABASE_URL.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildIfStale, CLI, cleanEnv, jsonLines, ROOT, runCli } from "../cli/helpers.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { findPostgres } from "../support/postgres.js";
import { type SharedPostgres, sharedPostgres } from "../support/shared-postgres.js";
import { kinds, waitFor } from "./helpers.js";

const found = findPostgres();
const missing = "missing" in found ? found.missing : undefined;
if (missing) describe("goat worker / submit / follow", () => it.skip(missing, () => {}));

describe.skipIf(missing !== undefined)("goat worker / submit / follow", () => {
  let server: SharedPostgres;
  let mock: MockProvider;
  let env: Record<string, string>;
  let worker: ChildProcess | undefined;
  let workerOutput = "";

  beforeAll(async () => {
    buildIfStale();
    server = await sharedPostgres();
    mock = await startMockProvider();
    env = cleanEnv({
      DATABASE_URL: await server.createDatabase("cli"),
      ANTHROPIC_API_KEY: "test-key",
      ANTHROPIC_BASE_URL: mock.anthropicBaseURL,
      GOAT_MODEL: "anthropic/claude-test",
    });
    worker = spawn(process.execPath, [CLI, "worker", "--concurrency", "2", "--id", "cli-worker"], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    worker.stdout?.on("data", (d) => {
      workerOutput += d;
    });
    worker.stderr?.on("data", (d) => {
      workerOutput += d;
    });
    await waitFor("the worker to start", () => workerOutput.includes("taking durable sessions"), 60_000);
  }, 120_000);
  afterAll(async () => {
    if (worker && worker.exitCode === null) {
      const exited = new Promise((r) => worker?.once("exit", r));
      worker.kill("SIGKILL");
      await exited;
    }
    await mock?.close();
  });

  it("starts the worker without library warnings (pg's notices about its next major version)", () => {
    expect(workerOutput).toContain("taking durable sessions");
    expect(workerOutput).not.toContain("Warning");
  });

  it("submits a session and prints its answer, following it to the end", async () => {
    mock.enqueue(reply.text("Hello from a durable session"));
    const run = await runCli(["submit", "say hello"], { env, timeoutMs: 60_000 });
    expect(run.stderr).toMatch(/session [0-9a-f-]{36}, workflow [0-9a-f-]{36}/);
    expect(run.stdout).toBe("Hello from a durable session\n");
    expect(run.code).toBe(0);
  }, 90_000);

  it("follows a tool call as the interactive mode draws it: the call, then what it did", async () => {
    mock.enqueue(
      reply.toolCalls([{ name: "Read", input: { file_path: join(ROOT, "LICENSE") } }]),
      reply.text("It is the MIT licence."),
    );
    const run = await runCli(["submit", "what licence is this?"], { env, timeoutMs: 60_000 });
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n");
    expect(lines).toContain("● Read(LICENSE)");
    expect(lines.find((l) => l.startsWith("  ⎿ "))).toMatch(/^ {2}⎿ Read \d+ lines$/);
    expect(run.stdout).not.toContain('"file_path"');
    expect(run.stdout).toContain("It is the MIT licence.");
  }, 90_000);

  it("submits detached, follows from another process as JSON lines, and cancels", async () => {
    mock.enqueue(reply.text("first"));
    const detached = await runCli(["submit", "--detach", "--output-format", "stream-json", "quick"], {
      env,
      timeoutMs: 60_000,
    });
    expect(detached.code).toBe(0);
    const { workflowId } = JSON.parse(detached.stdout);
    const followed = await runCli(["follow", "--output-format", "stream-json", workflowId], {
      env,
      timeoutMs: 60_000,
    });
    expect(followed.code).toBe(0);
    const messages = jsonLines(followed.stdout);
    expect(kinds(messages)).toEqual(["system", "assistant", "result"]);
    expect(messages.at(-1)).toMatchObject({ subtype: "success", result: "first" });

    // A slow answer, cancelled while it streams: follow ends, and says so.
    mock.enqueue(reply.text("a very slow answer that never finishes", { delayMs: 1000, chunkSize: 1 }));
    const slow = await runCli(["submit", "--detach", "slow one"], { env, timeoutMs: 60_000 });
    const slowId = slow.stdout.split(" ")[0];
    await waitFor("the slow call", () =>
      mock.requests.some((r) => JSON.stringify(r.body).includes("slow one")),
    );
    const cancel = await runCli(["cancel", slowId], { env, timeoutMs: 60_000 });
    expect(cancel.code).toBe(0);
    const after = await runCli(["follow", slowId], { env, timeoutMs: 60_000 });
    expect(after.code).toBe(1);
    expect(after.stderr).toContain("the session ended CANCELLED");
  }, 120_000);

  it("fails in bounded time, naming the database, when PostgreSQL does not answer", async () => {
    const port = server.port + 1000; // no cluster there
    const unreachable = {
      ...env,
      DATABASE_URL: `postgres://goat@127.0.0.1:${port}/nowhere`,
      GOAT_DATABASE_TIMEOUT_MS: "1000",
    };
    for (const args of [
      ["submit", "x"],
      ["follow", "w"],
      ["send", "w", "t"],
      ["cancel", "w"],
      ["durable", "list"],
    ]) {
      const started = Date.now();
      const run = await runCli(args, { env: unreachable, timeoutMs: 20_000 });
      expect(run.code, args.join(" ")).toBe(1);
      expect(run.stderr).toContain(`PostgreSQL at goat@127.0.0.1:${port}/nowhere did not answer within 1 s`);
      expect(Date.now() - started).toBeLessThan(10_000);
    }
  }, 90_000);

  it("prints a session's denied calls, and lists and shows sessions", async () => {
    // A command that changes something: asked, and a worker with nobody to ask denies it.
    const probe = `/tmp/goat-denied-probe-${process.pid}`;
    mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: `touch ${probe}` } }]),
      reply.text("could not"),
    );
    const run = await runCli(["submit", "--dedup-id", "deny-1", "--priority", "3", "run a command"], {
      env,
      timeoutMs: 60_000,
    });
    expect(run.stderr).toContain("goat: 1 tool call(s) denied: Bash");
    const workflowId = /workflow ([0-9a-f-]{36})/.exec(run.stderr)?.[1] as string;
    const list = await runCli(["durable", "list", "--json"], { env, timeoutMs: 60_000 });
    const sessions = JSON.parse(list.stdout);
    expect(sessions[0]).toMatchObject({
      workflowId,
      status: "SUCCESS",
      executorId: "cli-worker",
      priority: 3,
    });
    expect(sessions[0].applicationVersion).toMatch(/^goat-/);
    const show = await runCli(["durable", "show", workflowId], { env, timeoutMs: 60_000 });
    expect(show.stdout).toContain(`workflow: ${workflowId}`);
    expect(show.stdout).toMatch(/last step: \d+ \S+/);
  }, 90_000);

  it("says what is missing without DATABASE_URL", async () => {
    const { DATABASE_URL: _, ...withoutDb } = env;
    const run = await runCli(["submit", "x"], { env: withoutDb });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("goat submit needs DATABASE_URL");
  });
});
