/**
 * Side-effect-free tool calls of one answer run as parallel steps in a durable session: real
 * PostgreSQL, real worker processes (one killed with SIGKILL), the mock provider over HTTP. The calls
 * overlap; their results come back in the model's order; after a crash a finished call is not run
 * again and each call gets its own checkpoint back, never a sibling's.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDurableClient, type DurableClient } from "../../src/dbos/client.js";
import { createPostgresSessionStore } from "../../src/dbos/postgres-store.js";
import type { ToolResultBlock } from "../../src/llm/types.js";
import { getSessionMessages } from "../../src/session/api.js";
import { tempDir } from "../session/fixtures.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { findPostgres } from "../support/postgres.js";
import { type SharedPostgres, sharedPostgres } from "../support/shared-postgres.js";
import { linesOf, startWorker, toolResultCount, type WorkerProcess, waitFor } from "./helpers.js";

const found = findPostgres();
const missing = "missing" in found ? found.missing : undefined;
if (missing) describe("parallel durable tool steps", () => it.skip(missing, () => {}));

describe.skipIf(missing !== undefined)("parallel durable tool steps", () => {
  let server: SharedPostgres;
  let mock: MockProvider;
  let dir: string;
  let cleanup: () => void;
  let databases = 0;
  const workers: WorkerProcess[] = [];
  const clients: DurableClient[] = [];

  beforeAll(async () => {
    server = await sharedPostgres();
    mock = await startMockProvider();
    ({ dir, cleanup } = tempDir("goat-parallel-"));
  }, 90_000);
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.kill9();
    for (const c of clients.splice(0)) await c.close();
    mock.setWhenEmpty(reply.text("unused"));
  });
  afterAll(async () => {
    await mock?.close();
    cleanup?.();
  });

  async function setup() {
    const name = `parallel${++databases}`;
    const databaseUrl = await server.createDatabase(name);
    const sideFile = join(dir, `${name}.lines`);
    const env = { DATABASE_URL: databaseUrl, ANTHROPIC_BASE_URL: mock.anthropicBaseURL, SIDE_FILE: sideFile };
    const client = await createDurableClient({ databaseUrl });
    clients.push(client);
    const spawnWorker = async (id: string) => {
      const w = await startWorker(id, env);
      workers.push(w);
      return w;
    };
    return { databaseUrl, readLog: `${sideFile}.reads`, client, spawnWorker };
  }

  /** The tool results of the session, in transcript order, each after its own tool_use. */
  async function toolResults(databaseUrl: string, sessionId: string) {
    const store = createPostgresSessionStore({ connectionString: databaseUrl });
    try {
      const messages = await getSessionMessages(sessionId, { store });
      const pairs: Array<{ input: unknown; result: unknown }> = [];
      for (let i = 0; i < messages.length; i++) {
        const m = messages[i];
        if (m.role !== "assistant") continue;
        const calls = m.content.filter((b) => b.type === "tool_use") as Array<{ id: string; input: unknown }>;
        if (calls.length === 0) continue;
        const next = messages[i + 1];
        const results =
          next?.role === "user" && Array.isArray(next.content)
            ? next.content.filter((b): b is ToolResultBlock => b.type === "tool_result")
            : [];
        expect(results.map((r) => r.tool_use_id)).toEqual(calls.map((c) => c.id));
        for (const [k, c] of calls.entries()) pairs.push({ input: c.input, result: results[k].content });
      }
      return pairs;
    } finally {
      await store.close();
    }
  }

  it("runs the side-effect-free calls of one answer together, results in the model's order", async () => {
    const { databaseUrl, readLog, client, spawnWorker } = await setup();
    const texts = ["a", "b", "c", "d"];
    mock.setWhenEmpty((request) =>
      toolResultCount(request) === 0
        ? reply.toolCalls(texts.map((text) => ({ name: "slow_read", input: { text, waitMs: 200 } })))
        : reply.text("read all"),
    );
    await spawnWorker("p1");
    const started = Date.now();
    const { workflowId, sessionId } = await client.submit({ prompt: "read four" });
    expect(await client.result(workflowId)).toMatchObject({ subtype: "success", result: "read all" });
    const sessionMs = Date.now() - started;

    const log = linesOf(readLog).map((line) => line.split(" "));
    const times = log.map(([, , ms]) => Number(ms));
    const batchMs = Math.max(...times) - Math.min(...times);
    process.stdout.write(`4 × 200 ms slow_read: tool batch ${batchMs} ms, session ${sessionMs} ms\n`);
    const firstEnd = log.findIndex(([event]) => event === "end");
    // Every call started before any ended: they overlapped (one at a time, a start follows each end).
    expect(
      log
        .slice(0, firstEnd)
        .map(([, text]) => text)
        .sort(),
    ).toEqual(texts);
    expect(batchMs).toBeLessThan(4 * 200);

    const pairs = await toolResults(databaseUrl, sessionId);
    expect(pairs.map((p) => p.result)).toEqual(texts.map((t) => `read ${t}`));
  }, 60_000);

  it("after a crash mid-batch, reruns only the unfinished call and gives each call its own result", async () => {
    const { databaseUrl, readLog, client, spawnWorker } = await setup();
    const release = join(dir, "release-b");
    mock.setWhenEmpty((request) =>
      toolResultCount(request) === 0
        ? reply.toolCalls([
            { name: "slow_read", input: { text: "a", waitMs: 10 } },
            { name: "slow_read", input: { text: "b", untilFile: release } },
            { name: "slow_read", input: { text: "c", waitMs: 10 } },
          ])
        : reply.text("after the crash"),
    );
    const first = await spawnWorker("q1");
    const { workflowId, sessionId } = await client.submit({ prompt: "read three" });
    // a and c have finished and been checkpointed while b still runs.
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      await waitFor("a's and c's checkpoints", async () => {
        const { rows } = await db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM dbos.operation_outputs WHERE workflow_uuid = $1 AND function_name = 'tool:slow_read'",
          [workflowId],
        );
        return rows[0].n === 2;
      });
    } finally {
      await db.end();
    }
    expect(
      linesOf(readLog)
        .filter((l) => l.startsWith("end"))
        .map((l) => l.split(" ")[1]),
    ).toEqual(expect.arrayContaining(["a", "c"]));
    await first.kill9();
    writeFileSync(release, "");

    await spawnWorker("q2");
    expect(await client.result(workflowId)).toMatchObject({ subtype: "success", result: "after the crash" });
    const startsOf = (text: string) => linesOf(readLog).filter((l) => l.startsWith(`start ${text} `)).length;
    expect([startsOf("a"), startsOf("b"), startsOf("c")]).toEqual([1, 2, 1]);
    const pairs = await toolResults(databaseUrl, sessionId);
    expect(pairs.map((p) => p.result)).toEqual(["read a", "read b", "read c"]);
  }, 60_000);
});
