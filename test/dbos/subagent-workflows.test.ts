/**
 * Subagents of durable sessions as child workflows: real PostgreSQL, real worker processes (the first
 * killed with SIGKILL while the subagent runs a tool), the mock provider over HTTP. The Task call
 * starts a child workflow whose id derives from the parent's and the call's; after the takeover the
 * child resumes where it stood (its finished model calls and tool calls are not made again) and the
 * parent gets its answer.
 */
import { join } from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDurableClient, type DurableClient } from "../../src/dbos/client.js";
import type { MockRequest } from "../../src/testing/mock-provider.js";
import { tempDir } from "../session/fixtures.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { findPostgres } from "../support/postgres.js";
import { type SharedPostgres, sharedPostgres } from "../support/shared-postgres.js";
import {
  firstPrompt,
  linesOf,
  resultTexts,
  startWorker,
  toolResultCount,
  type WorkerProcess,
  waitFor,
} from "./helpers.js";

const found = findPostgres();
const missing = "missing" in found ? found.missing : undefined;
if (missing) describe("durable subagents", () => it.skip(missing, () => {}));

describe.skipIf(missing !== undefined)("durable subagents", () => {
  let server: SharedPostgres;
  let mock: MockProvider;
  let dir: string;
  let cleanup: () => void;
  const workers: WorkerProcess[] = [];
  const clients: DurableClient[] = [];

  beforeAll(async () => {
    server = await sharedPostgres();
    mock = await startMockProvider();
    ({ dir, cleanup } = tempDir("goat-durable-agents-"));
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

  it("runs the Task call's subagent as a child workflow that resumes after a crash, not re-run", async () => {
    const databaseUrl = await server.createDatabase("agents1");
    const sideFile = join(dir, "agents1.lines");
    const env = {
      DATABASE_URL: databaseUrl,
      ANTHROPIC_BASE_URL: mock.anthropicBaseURL,
      SIDE_FILE: sideFile,
      WITH_AGENTS: "1",
    };
    const client = await createDurableClient({ databaseUrl });
    clients.push(client);
    const parentRequests: MockRequest[] = [];
    const childRequests: MockRequest[] = [];
    mock.setWhenEmpty((request) => {
      const done = toolResultCount(request);
      if (firstPrompt(request) === "do the sub work") {
        childRequests.push(request);
        if (done === 0) return reply.toolCalls([{ name: "append_line", input: { text: "child-one" } }]);
        if (done === 1)
          return reply.toolCalls([{ name: "append_line", input: { text: "child-two", waitMs: 60_000 } }]);
        return reply.text("child done");
      }
      parentRequests.push(request);
      if (done === 0)
        return reply.toolCalls([
          {
            name: "Task",
            input: { description: "sub work", prompt: "do the sub work", subagent_type: "helper" },
          },
        ]);
      return reply.text("parent done");
    });
    const first = await startWorker("a1", env);
    workers.push(first);
    const { workflowId, sessionId } = await client.submit({ prompt: "delegate" });
    await waitFor("the subagent's second call", () => linesOf(sideFile).includes("child-two"));
    await first.kill9();

    workers.push(await startWorker("a2", env));
    expect(await client.result(workflowId)).toMatchObject({ subtype: "success", result: "parent done" });
    // Each call ran once: the subagent was resumed, not started again.
    expect(linesOf(sideFile)).toEqual(["child-one", "child-two"]);
    expect(childRequests).toHaveLength(3);
    expect(resultTexts(childRequests[2])).toEqual([
      "appended child-one",
      expect.stringMatching(/interrupted/),
    ]);
    expect(parentRequests).toHaveLength(2);
    expect(resultTexts(parentRequests[1])).toEqual(["child done"]);

    // The child is a workflow of its own, named after the parent and the Task call.
    const taskCall = (parentRequests[1].body?.messages ?? [])
      .flatMap((m: { content: unknown }) => (Array.isArray(m.content) ? m.content : []))
      .find((b: { type: string }) => b.type === "tool_use") as { id: string };
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ status: string }>(
        "SELECT status FROM dbos.workflow_status WHERE workflow_uuid = $1",
        [`${workflowId}.task-${taskCall.id}`],
      );
      expect(rows).toEqual([{ status: "SUCCESS" }]);
      // Its transcript is one of the parent session's subagent transcripts, not a session of its own.
      const sessions = await db.query<{ session_id: string }>(
        "SELECT session_id FROM goat.sessions ORDER BY session_id",
      );
      expect(sessions.rows.map((r) => r.session_id)).toEqual([
        sessionId,
        expect.stringMatching(new RegExp(`^${sessionId}\\.agent-`)),
      ]);
    } finally {
      await db.end();
    }
  }, 90_000);

  it("runs the Task calls of one answer together, and after a crash each parent call gets its own child's answer", async () => {
    const databaseUrl = await server.createDatabase("agents2");
    const sideFile = join(dir, "agents2.lines");
    const env = {
      DATABASE_URL: databaseUrl,
      ANTHROPIC_BASE_URL: mock.anthropicBaseURL,
      SIDE_FILE: sideFile,
      WITH_AGENTS: "1",
    };
    const client = await createDurableClient({ databaseUrl });
    clients.push(client);
    let lastParentRequest: MockRequest | undefined;
    mock.setWhenEmpty((request) => {
      const done = toolResultCount(request);
      const prompt = firstPrompt(request);
      const child = /^sub (\w+)$/.exec(prompt)?.[1];
      if (child !== undefined) {
        // Each child holds its one call until the test kills the worker.
        if (done === 0)
          return reply.toolCalls([{ name: "append_line", input: { text: child, waitMs: 60_000 } }]);
        return reply.text(`${child} done`);
      }
      lastParentRequest = request;
      if (done === 0)
        return reply.toolCalls(
          ["A", "B"].map((name) => ({
            name: "Task",
            input: { description: `sub ${name}`, prompt: `sub ${name}`, subagent_type: "helper" },
          })),
        );
      return reply.text("both done");
    });
    const first = await startWorker("b1", env);
    workers.push(first);
    const { workflowId } = await client.submit({ prompt: "delegate twice" });
    // Both children hold their call at once: one at a time, the second would wait a minute.
    await waitFor("both subagents' calls", () => linesOf(sideFile).length === 2);
    await first.kill9();

    workers.push(await startWorker("b2", env));
    expect(await client.result(workflowId)).toMatchObject({ subtype: "success", result: "both done" });
    expect([...linesOf(sideFile)].sort()).toEqual(["A", "B"]);
    expect(resultTexts(lastParentRequest as MockRequest)).toEqual(["A done", "B done"]);
  }, 90_000);
});
