/**
 * Durable sessions on a shared queue: two worker processes, a hundred sessions, limits per worker and
 * across workers; the queue's rate limit; cancellation; steering and follow-up messages reaching a running session; a follower
 * in another process reading the session live.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDurableClient, type DurableClient } from "../../src/dbos/client.js";
import { createPostgresSessionStore } from "../../src/dbos/postgres-store.js";
import { textOf } from "../../src/llm/types.js";
import type { SDKMessage } from "../../src/sdk/sdk-messages.js";
import { getSessionMessages, listSessions } from "../../src/session/api.js";
import { tempDir } from "../session/fixtures.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { findPostgres } from "../support/postgres.js";
import { type SharedPostgres, sharedPostgres } from "../support/shared-postgres.js";
import {
  firstPrompt,
  kinds,
  linesOf,
  startWorker,
  toolResultCount,
  type WorkerProcess,
  waitFor,
} from "./helpers.js";

const found = findPostgres();
const missing = "missing" in found ? found.missing : undefined;
if (missing) describe("durable sessions on a queue", () => it.skip(missing, () => {}));

describe.skipIf(missing !== undefined)("durable sessions on a queue", () => {
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
    ({ dir, cleanup } = tempDir("goat-queue-"));
  }, 90_000);
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.kill9();
    for (const c of clients.splice(0)) await c.close();
  });
  afterAll(async () => {
    await mock?.close();
    cleanup?.();
  });

  async function setup(extraEnv: Record<string, string> = {}) {
    const name = `queue${++databases}`;
    const databaseUrl = await server.createDatabase(name);
    const sideFile = join(dir, `${name}.lines`);
    const concurrencyFile = join(dir, `${name}.concurrency`);
    const env = {
      DATABASE_URL: databaseUrl,
      ANTHROPIC_BASE_URL: mock.anthropicBaseURL,
      SIDE_FILE: sideFile,
      CONCURRENCY_FILE: concurrencyFile,
      ...extraEnv,
    };
    const client = await createDurableClient({ databaseUrl });
    clients.push(client);
    const spawnWorker = async (id: string) => {
      const w = await startWorker(id, env);
      workers.push(w);
      return w;
    };
    return { databaseUrl, sideFile, concurrencyFile, client, spawnWorker };
  }

  it("runs 100 queued sessions on two workers, each once, within the per-worker and global limits", async () => {
    const { sideFile, concurrencyFile, client, spawnWorker } = await setup({
      WORKER_CONCURRENCY: "5",
      GLOBAL_CONCURRENCY: "8",
      // No worker dies here: a loaded machine must not make a slow one look dead (a takeover re-asks
      // the model for the calls in flight, which this test counts).
      DEAD_AFTER_MS: "30000",
    });
    mock.setWhenEmpty((request) =>
      toolResultCount(request) === 0
        ? reply.toolCalls([{ name: "append_line", input: { text: firstPrompt(request), waitMs: 40 } }])
        : reply.text(`done ${firstPrompt(request)}`),
    );
    const before = mock.requests.length;
    await Promise.all([spawnWorker("a"), spawnWorker("b")]);
    const handles = [];
    for (let i = 0; i < 100; i++) handles.push(await client.submit({ prompt: `session-${i}` }));
    // Awaited one after another: they finish in about the order they were queued, and a hundred
    // results awaited at once were a hundred clients polling the database (2,450 queries).
    const results = [];
    for (const h of handles) results.push(await client.result(h.workflowId));

    expect(results.map((r) => r?.result)).toEqual(handles.map((_, i) => `done session-${i}`));
    const lines = linesOf(sideFile);
    expect(lines).toHaveLength(100);
    expect(new Set(lines).size).toBe(100);
    expect(mock.requests.length - before).toBe(200);

    // Replay the start/end log: the most sessions inside a tool call at once, per worker and overall.
    const perWorker = new Map<string, number>();
    const peak = new Map<string, number>();
    let total = 0;
    let peakTotal = 0;
    for (const line of linesOf(concurrencyFile)) {
      const [what, worker] = line.split(" ");
      const delta = what === "start" ? 1 : -1;
      perWorker.set(worker, (perWorker.get(worker) ?? 0) + delta);
      peak.set(worker, Math.max(peak.get(worker) ?? 0, perWorker.get(worker)!));
      total += delta;
      peakTotal = Math.max(peakTotal, total);
    }
    expect([...peak.keys()].sort()).toEqual(["a", "b"]);
    for (const p of peak.values()) expect(p).toBeLessThanOrEqual(5);
    expect(peakTotal).toBeLessThanOrEqual(8);
    expect(peakTotal).toBeGreaterThan(1);
    mock.setWhenEmpty(reply.text("unused"));
  }, 120_000);

  it("holds sessions over the queue's rate limit until the window frees, across workers", async () => {
    const { databaseUrl, client, spawnWorker } = await setup({ RATE_LIMIT: "2/1" });
    mock.setWhenEmpty((request) => reply.text(`done ${firstPrompt(request)}`));
    await Promise.all([spawnWorker("r1"), spawnWorker("r2")]);
    const submittedAt = Date.now();
    const handles = await Promise.all(
      Array.from({ length: 6 }, (_, i) => client.submit({ prompt: `limited-${i}` })),
    );
    // Measured from outside: when each result reaches the client, counted from the submit.
    const finishedAfter = await Promise.all(
      handles.map(async (h) => {
        const result = await client.result(h.workflowId);
        expect(result?.result).toMatch(/^done limited-/);
        return Date.now() - submittedAt;
      }),
    );
    finishedAfter.sort((a, b) => a - b);
    // Two per second: the fifth and sixth sessions cannot start before the window has rolled twice.
    expect(finishedAfter[4]).toBeGreaterThanOrEqual(1_950);
    expect(finishedAfter[5]).toBeLessThan(15_000);

    // DBOS's own record of the starts (the database's clock): never three within one second.
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ started: string }>(
        "SELECT started_at_epoch_ms::text AS started FROM dbos.workflow_status WHERE workflow_uuid = ANY($1) ORDER BY started_at_epoch_ms",
        [handles.map((h) => h.workflowId)],
      );
      const starts = rows.map((r) => Number(r.started));
      expect(starts).toHaveLength(6);
      for (let i = 0; i + 2 < starts.length; i++)
        expect(starts[i + 2] - starts[i]).toBeGreaterThanOrEqual(990);
    } finally {
      await db.end();
    }
    mock.setWhenEmpty(reply.text("unused"));
  }, 60_000);

  it("cancels a running session: the tool stops at once and its call still gets a result", async () => {
    const { databaseUrl, concurrencyFile, client, spawnWorker } = await setup();
    mock.setWhenEmpty((request) =>
      toolResultCount(request) === 0
        ? reply.toolCalls([{ name: "append_line", input: { text: "long", waitMs: 60_000 } }])
        : reply.text("should not be reached"),
    );
    await spawnWorker("c");
    const { workflowId, sessionId } = await client.submit({ prompt: "run long" });
    await waitFor("the tool to start", () => linesOf(concurrencyFile).some((l) => l.startsWith("start")));
    const cancelledAt = Date.now();
    await client.cancel(workflowId);
    await waitFor("the tool to stop", () => linesOf(concurrencyFile).some((l) => l.startsWith("end")));
    expect(Date.now() - cancelledAt).toBeLessThan(5_000);
    expect(await client.status(workflowId)).toBe("CANCELLED");

    const store = createPostgresSessionStore({ connectionString: databaseUrl });
    try {
      const messages = await waitFor("the transcript to pair the call", async () => {
        const m = await getSessionMessages(sessionId, { store });
        return m.length >= 3 ? m : undefined;
      });
      if (!messages) throw new Error("unreachable");
      const answer = messages[2];
      expect(answer.role).toBe("user");
      expect(Array.isArray(answer.content) && answer.content[0]).toMatchObject({
        type: "tool_result",
        isError: true,
      });
    } finally {
      await store.close();
    }
    mock.setWhenEmpty(reply.text("unused"));
  }, 60_000);

  it("delivers steering and follow-up messages to a running session, and a follower sees it live", async () => {
    const { concurrencyFile, client, spawnWorker } = await setup();
    // The tool runs until the test has steered: the steering message surely arrives mid-call.
    const steered = join(dir, "steered");
    mock.setWhenEmpty((request) => {
      const last = JSON.stringify(request.body.messages.at(-1));
      if (toolResultCount(request) === 0)
        return reply.toolCalls([{ name: "append_line", input: { text: "slow", untilFile: steered } }]);
      if (last.includes("follow-up question")) return reply.text("answer to the follow-up");
      return reply.text("first answer");
    });
    await spawnWorker("s");
    const { workflowId } = await client.submit({ prompt: "start", followUpWaitSeconds: 3 });

    const seen: SDKMessage[] = [];
    let toolRunningWhenCallSeen = false;
    const following = (async () => {
      for await (const message of client.follow(workflowId)) {
        seen.push(message);
        if (message.type === "assistant" && message.message.content.some((b) => b.type === "tool_use")) {
          toolRunningWhenCallSeen = !linesOf(concurrencyFile).some((l) => l.startsWith("end"));
          await client.steer(workflowId, "steering: keep it short");
          writeFileSync(steered, "");
        }
        if (message.type === "assistant" && JSON.stringify(message).includes("first answer")) {
          await client.sendFollowUp(workflowId, "follow-up question");
        }
      }
    })();
    const result = await client.result(workflowId);
    await following;

    expect(result).toMatchObject({ subtype: "success", result: "answer to the follow-up" });
    expect(toolRunningWhenCallSeen).toBe(true);
    const requests = mock.requests.filter((r) => firstPrompt(r) === "start");
    // The steering message joined the conversation right after the tool result (the next turn boundary).
    expect(JSON.stringify(requests[1].body.messages)).toContain("steering: keep it short");
    expect(JSON.stringify(requests[2].body.messages.at(-1))).toContain("follow-up question");
    expect(kinds(seen)).toEqual(["system", "assistant", "user", "assistant", "assistant", "result"]);
    mock.setWhenEmpty(reply.text("unused"));
  }, 60_000);

  it("resumes and forks a durable session's transcript in PostgreSQL", async () => {
    const { databaseUrl, client, spawnWorker } = await setup();
    mock.setWhenEmpty((request) => reply.text(`reply ${request.body.messages.length}`));
    await spawnWorker("r");
    const first = await client.submit({ prompt: "remember 42" });
    expect(await client.result(first.workflowId)).toMatchObject({ result: "reply 1" });
    const second = await client.submit({ prompt: "what number?", resume: first.sessionId });
    expect(second.sessionId).toBe(first.sessionId);
    expect(await client.result(second.workflowId)).toMatchObject({ result: "reply 3" });
    const fork = await client.submit({
      prompt: "and in the fork?",
      resume: first.sessionId,
      forkSession: true,
    });
    expect(fork.sessionId).toBe(fork.workflowId);
    expect(await client.result(fork.workflowId)).toMatchObject({ result: "reply 5" });

    const store = createPostgresSessionStore({ connectionString: databaseUrl });
    try {
      const texts = async (id: string) => (await getSessionMessages(id, { store })).map(textOf);
      expect(await texts(first.sessionId)).toEqual(["remember 42", "reply 1", "what number?", "reply 3"]);
      expect(await texts(fork.sessionId)).toEqual([
        "remember 42",
        "reply 1",
        "what number?",
        "reply 3",
        "and in the fork?",
        "reply 5",
      ]);
      const entries = (await store.load(first.sessionId)) ?? [];
      expect(entries.filter((e) => e.type === "header")).toHaveLength(1);
      expect(entries.filter((e) => e.type === "result")).toHaveLength(2);
      expect((await listSessions({ store })).map((s) => s.sessionId).sort()).toEqual(
        [first.sessionId, fork.sessionId].sort(),
      );
    } finally {
      await store.close();
    }
    mock.setWhenEmpty(reply.text("unused"));
  }, 60_000);
});
