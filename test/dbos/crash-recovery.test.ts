/**
 * Durable sessions surviving a worker's death: real PostgreSQL, real worker processes killed with
 * SIGKILL, the mock provider over HTTP. Another worker adopts the session and finishes it; the
 * transcript is complete and paired; the side-effect tool ran exactly once per call.
 */
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDurableClient, type DurableClient } from "../../src/dbos/client.js";
import { createPostgresSessionStore } from "../../src/dbos/postgres-store.js";
import type { ToolResultBlock } from "../../src/llm/types.js";
import { getSessionMessages } from "../../src/session/api.js";
import { INTERRUPTED_TOOL_RESULT } from "../../src/session/repair.js";
import { tempDir } from "../session/fixtures.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { findPostgres } from "../support/postgres.js";
import { type SharedPostgres, sharedPostgres } from "../support/shared-postgres.js";
import { kinds, linesOf, startWorker, toolResultCount, type WorkerProcess, waitFor } from "./helpers.js";

const found = findPostgres();
const missing = "missing" in found ? found.missing : undefined;
if (missing) describe("durable sessions after a worker dies", () => it.skip(missing, () => {}));

describe.skipIf(missing !== undefined)("durable sessions after a worker dies", () => {
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
    ({ dir, cleanup } = tempDir("goat-durable-"));
  }, 90_000);
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.kill9();
    for (const c of clients.splice(0)) await c.close();
  });
  afterAll(async () => {
    await mock?.close();
    cleanup?.();
  });

  /** A fresh database, a side-effect file, and the env of workers on them. */
  async function setup() {
    const name = `crash${++databases}`;
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
    return { databaseUrl, sideFile, client, spawnWorker };
  }

  /** Every tool_use in the transcript has exactly one tool_result right after it. */
  async function expectPaired(databaseUrl: string, sessionId: string) {
    const store = createPostgresSessionStore({ connectionString: databaseUrl });
    try {
      const messages = await getSessionMessages(sessionId, { store });
      for (let i = 0; i < messages.length; i++) {
        const m = messages[i];
        if (m.role !== "assistant") continue;
        const calls = m.content.filter((b) => b.type === "tool_use").map((b) => (b as { id: string }).id);
        if (calls.length === 0) continue;
        const next = messages[i + 1];
        const results =
          next?.role === "user" && Array.isArray(next.content)
            ? next.content
                .filter((b): b is ToolResultBlock => b.type === "tool_result")
                .map((b) => b.tool_use_id)
            : [];
        expect(results).toEqual(calls);
      }
      return messages;
    } finally {
      await store.close();
    }
  }

  it("answers a tool call cut by the crash as interrupted, never runs a tool twice, and finishes on another worker", async () => {
    const { databaseUrl, sideFile, client, spawnWorker } = await setup();
    mock.setWhenEmpty((request) => {
      const done = toolResultCount(request);
      if (done === 0) return reply.toolCalls([{ name: "append_line", input: { text: "one" } }]);
      if (done === 1)
        return reply.toolCalls([{ name: "append_line", input: { text: "two", waitMs: 60_000 } }]);
      return reply.text("all done");
    });
    const first = await spawnWorker("w1");
    const { workflowId, sessionId } = await client.submit({ prompt: "append twice" });
    await waitFor("the second call to start", () => linesOf(sideFile).includes("two"));
    await first.kill9();

    await spawnWorker("w2");
    const result = await client.result(workflowId);
    expect(result).toMatchObject({ subtype: "success", result: "all done" });
    expect(linesOf(sideFile)).toEqual(["one", "two"]);

    const messages = await expectPaired(databaseUrl, sessionId);
    const results = messages.flatMap((m) =>
      m.role === "user" && Array.isArray(m.content) ? m.content.filter((b) => b.type === "tool_result") : [],
    ) as ToolResultBlock[];
    expect(results.map((r) => [r.content, r.isError === true])).toEqual([
      ["appended one", false],
      [INTERRUPTED_TOOL_RESULT, true],
    ]);
    expect(messages.at(-1)).toMatchObject({
      role: "assistant",
      content: [{ type: "text", text: "all done" }],
    });

    // A follower on another connection reads the whole session: every message once, in order.
    const followed = [];
    for await (const message of client.follow(workflowId)) followed.push(message);
    expect(kinds(followed)).toEqual([
      "system",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
      "result",
    ]);
    mock.setWhenEmpty(reply.text("unused"));
  }, 60_000);

  it("re-asks the model after a crash mid-stream, without repeating the completed call and tool", async () => {
    const { databaseUrl, sideFile, client, spawnWorker } = await setup();
    let streams = 0;
    mock.setWhenEmpty((request) => {
      if (toolResultCount(request) === 0)
        return reply.toolCalls([{ name: "append_line", input: { text: "once" } }]);
      streams++;
      // The first answer after the tool streams slowly: the test kills the worker in the middle.
      return reply.text(
        "a long answer that arrives slowly",
        streams === 1 ? { delayMs: 300, chunkSize: 2 } : {},
      );
    });
    const before = mock.requests.length;
    const first = await spawnWorker("m1");
    const { workflowId, sessionId } = await client.submit({ prompt: "append once then talk" });
    await waitFor("the slow stream to start", () => streams === 1);
    await new Promise((r) => setTimeout(r, 700)); // a few chunks delivered
    await first.kill9();

    await spawnWorker("m2");
    const result = await client.result(workflowId);
    expect(result).toMatchObject({ subtype: "success", result: "a long answer that arrives slowly" });
    expect(linesOf(sideFile)).toEqual(["once"]);
    // The first call (checkpointed) was not made again; the cut one was.
    expect(mock.requests.length - before).toBe(3);
    expect(streams).toBe(2);
    const messages = await expectPaired(databaseUrl, sessionId);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    mock.setWhenEmpty(reply.text("unused"));
  }, 60_000);
});
