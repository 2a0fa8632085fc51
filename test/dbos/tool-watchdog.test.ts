/**
 * A worker's tool processes die with it: a worker killed with SIGKILL in the middle of a Bash command
 * leaves no command running (its watchdog kills the command's process group), so the "interrupted"
 * answer another worker gives the model after the takeover is true.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDurableClient, type DurableClient } from "../../src/dbos/client.js";
import { INTERRUPTED_TOOL_RESULT } from "../../src/session/repair.js";
import { tempDir } from "../session/fixtures.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { findPostgres } from "../support/postgres.js";
import { type SharedPostgres, sharedPostgres } from "../support/shared-postgres.js";
import { firstPrompt, startWorker, toolResultCount, type WorkerProcess, waitFor } from "./helpers.js";

const found = findPostgres();
const missing = "missing" in found ? found.missing : undefined;
if (missing || process.platform !== "linux")
  describe("a worker's tool processes", () => it.skip(missing ?? "Linux only (/proc)", () => {}));

/** A `sleep` of a length no other process uses, so the test finds its command by its arguments. */
const MARK = `297.${process.pid % 1000}`;

/** The pids of running (not zombie) processes whose command line is `sleep MARK`. */
function markedSleeps(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8") !== `sleep\0${MARK}\0`) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (stat[stat.lastIndexOf(")") + 2] !== "Z") found.push(Number(entry));
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}

describe.skipIf(missing !== undefined || process.platform !== "linux")("a worker's tool processes", () => {
  let server: SharedPostgres;
  let mock: MockProvider;
  let dir: string;
  let cleanup: () => void;
  const workers: WorkerProcess[] = [];
  let client: DurableClient | undefined;

  beforeAll(async () => {
    server = await sharedPostgres();
    mock = await startMockProvider();
    ({ dir, cleanup } = tempDir("goat-watchdog-"));
  }, 90_000);
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.kill9();
    await client?.close();
  });
  afterAll(async () => {
    await mock?.close();
    cleanup?.();
  });

  it("dies with a worker killed mid-command, and the model is told the call was interrupted", async () => {
    const databaseUrl = await server.createDatabase("watchdog");
    const env = {
      DATABASE_URL: databaseUrl,
      ANTHROPIC_BASE_URL: mock.anthropicBaseURL,
      SIDE_FILE: join(dir, "side.lines"),
      WITH_BASH: "1",
    };
    client = await createDurableClient({ databaseUrl });
    mock.setWhenEmpty((request) =>
      toolResultCount(request) === 0 && firstPrompt(request) === "long command"
        ? reply.toolCalls([{ name: "Bash", input: { command: `sleep ${MARK}` } }])
        : reply.text("noted"),
    );
    const doomed = await startWorker("doomed", env);
    workers.push(doomed);
    const { workflowId } = await client.submit({ prompt: "long command" });
    await waitFor("the command to start", () => markedSleeps().length === 1);
    await new Promise((r) => setTimeout(r, 300)); // the watchdog looks every 100 ms
    await doomed.kill9();
    await waitFor("the command to die with its worker", () => markedSleeps().length === 0, 3_000);

    workers.push(await startWorker("heir", env));
    expect(await client.result(workflowId)).toMatchObject({ result: "noted" });
    const last = mock.requests.filter((r) => firstPrompt(r) === "long command").at(-1);
    expect(JSON.stringify(last?.body.messages.at(-1))).toContain(INTERRUPTED_TOOL_RESULT.slice(0, 40));
  }, 60_000);
});
