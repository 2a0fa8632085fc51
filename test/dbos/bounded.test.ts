/**
 * Bounded durable sessions: client calls fail in bounded time, naming the database, when PostgreSQL
 * is unreachable (before a submit, and stopped while a session runs); a 100 MB tool output is stored
 * once and cut for the model; finished sessions are pruned by age.
 */
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { join } from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDurableClient, type DurableClient } from "../../src/dbos/client.js";
import { DatabaseUnreachableError } from "../../src/dbos/database-deadline.js";
import { createPostgresSessionStore } from "../../src/dbos/postgres-store.js";
import { tempDir } from "../session/fixtures.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { findPostgres, startPostgres, type TestPostgres } from "../support/postgres.js";
import { type SharedPostgres, sharedPostgres } from "../support/shared-postgres.js";
import {
  firstPrompt,
  linesOf,
  startWorker,
  toolResultCount,
  type WorkerProcess,
  waitFor,
} from "./helpers.js";

const found = findPostgres();
const missing = "missing" in found ? found.missing : undefined;
if (missing) describe("bounded durable sessions", () => it.skip(missing, () => {}));

/** A 127.0.0.1 port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** Bytes of the tables a session's payloads land in (DBOS's checkpoints and outputs, Goat's tables). */
async function payloadBytes(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ bytes: string }>(
      `SELECT sum(pg_total_relation_size(c.oid))::bigint AS bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname IN ('dbos', 'goat') AND c.relkind = 'r'`,
    );
    return Number(rows[0].bytes);
  } finally {
    await client.end();
  }
}

describe.skipIf(missing !== undefined)("bounded durable sessions", () => {
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
    ({ dir, cleanup } = tempDir("goat-bounded-"));
  }, 90_000);
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.kill9();
    for (const c of clients.splice(0)) await c.close();
  });
  afterAll(async () => {
    await mock?.close();
    cleanup?.();
  });

  async function setup(db: { createDatabase(name: string): Promise<string> }, timeoutMs = 2_000) {
    const name = `bounded${++databases}`;
    const databaseUrl = await db.createDatabase(name);
    const sideFile = join(dir, `${name}.lines`);
    const env = {
      DATABASE_URL: databaseUrl,
      ANTHROPIC_BASE_URL: mock.anthropicBaseURL,
      SIDE_FILE: sideFile,
    };
    const client = await createDurableClient({ databaseUrl, timeoutMs });
    clients.push(client);
    const spawnWorker = async (id: string) => {
      const w = await startWorker(id, env);
      workers.push(w);
      return w;
    };
    return { databaseUrl, sideFile, client, spawnWorker };
  }

  it("fails every client call within its timeout, naming the database, when PostgreSQL is down", async () => {
    const port = await closedPort();
    const databaseUrl = `postgres://goat:secret@127.0.0.1:${port}/sessions`;
    const client = await createDurableClient({ databaseUrl, timeoutMs: 1_000 });
    clients.push(client);
    const started = Date.now();
    const calls = await Promise.allSettled([
      client.submit({ prompt: "x" }),
      client.status("w"),
      client.cancel("w"),
      client.steer("w", "t"),
      client.list(),
      client.result("w"),
      client.follow("w").next(),
    ]);
    expect(Date.now() - started).toBeLessThan(5_000);
    for (const call of calls) {
      expect(call.status).toBe("rejected");
      const error = (call as PromiseRejectedResult).reason;
      expect(error).toBeInstanceOf(DatabaseUnreachableError);
      expect(error.message).toContain(`goat@127.0.0.1:${port}/sessions`);
      expect(error.message).not.toContain("secret");
    }
  }, 30_000);

  it("ends a follower and the client's calls in bounded time when PostgreSQL stops mid-run", async () => {
    const own: TestPostgres = await startPostgres();
    try {
      const { client, sideFile, spawnWorker } = await setup(own);
      mock.setWhenEmpty((request) =>
        toolResultCount(request) === 0 && firstPrompt(request) === "long"
          ? reply.toolCalls([{ name: "append_line", input: { text: "long", waitMs: 60_000 } }])
          : reply.text("unused"),
      );
      await spawnWorker("mid");
      const { workflowId } = await client.submit({ prompt: "long" });
      await waitFor("the tool to start", () => linesOf(sideFile).length === 1);
      const following = (async () => {
        for await (const _ of client.follow(workflowId));
      })();
      const stoppedAt = Date.now();
      await own.stop();
      await expect(following).rejects.toBeInstanceOf(DatabaseUnreachableError);
      await expect(client.status(workflowId)).rejects.toThrow(`127.0.0.1:${own.port}`);
      expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    } finally {
      for (const w of workers.splice(0)) await w.kill9();
      await own.stop();
      mock.setWhenEmpty(reply.text("unused"));
    }
  }, 90_000);

  it("stores a 100 MB tool output once, readable from any process, and gives the model its start and end", async () => {
    // Reading 100 MB back takes a few seconds on a loaded machine: a longer bound than for the others.
    const { databaseUrl, client, spawnWorker } = await setup(server, 60_000);
    // Incompressible text, so the bytes PostgreSQL keeps are the bytes written.
    const body = randomBytes(75 * 1024 * 1024).toString("base64");
    const bodyFile = join(dir, "big.txt");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(bodyFile, body);
    mock.setWhenEmpty((request) =>
      toolResultCount(request) === 0 && firstPrompt(request) === "big"
        ? reply.toolCalls([{ name: "read_big", input: { path: bodyFile } }])
        : reply.text("read it"),
    );
    await spawnWorker("big");
    const before = await payloadBytes(databaseUrl);
    const started = Date.now();
    const { workflowId } = await client.submit({ prompt: "big" });
    expect(await client.result(workflowId)).toMatchObject({ result: "read it" });
    const seconds = (Date.now() - started) / 1000;
    const grown = (await payloadBytes(databaseUrl)) - before;

    const second = mock.requests.filter((r) => firstPrompt(r) === "big")[1];
    const toolResult = JSON.stringify(second.body.messages.at(-1));
    expect(toolResult.length).toBeLessThan(40_000);
    const id = /tool output ([0-9a-f-]{36})/.exec(toolResult)?.[1];
    expect(id).toBeDefined();
    expect(toolResult).toContain(body.slice(0, 1000));
    expect(toolResult).toContain(body.slice(-1000));
    expect(await client.storedOutput(id as string)).toBe(body);
    // Stored once: about 100 MB, where the whole output in each checkpoint, transcript entry and
    // message made four copies.
    expect(grown).toBeGreaterThan(body.length * 0.9);
    expect(grown).toBeLessThan(body.length * 1.5);
    process.stdout.write(
      `100 MB tool output: ${seconds.toFixed(1)} s, ${(grown / 1e6).toFixed(0)} MB stored in PostgreSQL\n`,
    );
    mock.setWhenEmpty(reply.text("unused"));
  }, 180_000);

  it("prunes finished sessions older than an age, with their transcripts, and leaves running ones", async () => {
    const { databaseUrl, client, sideFile, spawnWorker } = await setup(server);
    mock.setWhenEmpty((request) =>
      firstPrompt(request) === "running" && toolResultCount(request) === 0
        ? reply.toolCalls([{ name: "append_line", input: { text: "running", waitMs: 60_000 } }])
        : reply.text(`done ${firstPrompt(request)}`),
    );
    await spawnWorker("prune");
    const finished = await client.submit({ prompt: "finished" });
    await client.result(finished.workflowId);
    const running = await client.submit({ prompt: "running" });
    await waitFor("the running session's tool", () => linesOf(sideFile).length === 1);

    expect(await client.prune(60 * 60 * 1000)).toEqual({ workflows: 0, transcripts: 0 });
    expect(await client.prune(0)).toEqual({ workflows: 1, transcripts: 1 });
    expect((await client.list()).map((s) => s.workflowId)).toEqual([running.workflowId]);
    const store = createPostgresSessionStore({ connectionString: databaseUrl });
    try {
      expect(await store.load(finished.sessionId)).toBeUndefined();
      expect(await store.load(running.sessionId)).toBeDefined();
    } finally {
      await store.close();
    }
    mock.setWhenEmpty(reply.text("unused"));
  }, 60_000);
});
