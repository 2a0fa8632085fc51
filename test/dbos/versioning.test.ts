/**
 * An upgrade whose step sequence changed: the new build's workers leave the old build's sessions
 * alone (a worker recovers only its own application version), an operator sees them per version and
 * moves them explicitly, and the engine's non-determinism error then ends the session visibly —
 * never as a tool result the model reads. Real PostgreSQL, real worker processes, the mock provider.
 */
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDurableClient, type DurableClient } from "../../src/dbos/client.js";
import { tempDir } from "../session/fixtures.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { findPostgres } from "../support/postgres.js";
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
if (missing) describe("durable sessions across an upgrade", () => it.skip(missing, () => {}));

describe.skipIf(missing !== undefined)("durable sessions across an upgrade", () => {
  let server: SharedPostgres;
  let mock: MockProvider;
  let dir: string;
  let cleanup: () => void;
  const workers: WorkerProcess[] = [];
  const clients: DurableClient[] = [];

  beforeAll(async () => {
    server = await sharedPostgres();
    mock = await startMockProvider();
    ({ dir, cleanup } = tempDir("goat-upgrade-"));
  }, 90_000);
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.kill9();
    for (const c of clients.splice(0)) await c.close();
  });
  afterAll(async () => {
    await mock?.close();
    cleanup?.();
  });

  it("keeps an old build's session from a new build until moved, then ends it ERROR without the model reading the engine's error", async () => {
    const databaseUrl = await server.createDatabase("upgrade");
    const sideFile = join(dir, "upgrade.lines");
    const env = { DATABASE_URL: databaseUrl, ANTHROPIC_BASE_URL: mock.anthropicBaseURL, SIDE_FILE: sideFile };
    const client = await createDurableClient({ databaseUrl });
    clients.push(client);
    const never = join(dir, "never-created");
    mock.setWhenEmpty((request) =>
      toolResultCount(request) === 0 && firstPrompt(request) === "old session"
        ? reply.toolCalls([{ name: "append_line", input: { text: "old", untilFile: never } }])
        : reply.text(`done ${firstPrompt(request)}`),
    );

    // The old build starts the session and dies in the middle of its tool call.
    const oldWorker = await startWorker("old", env);
    workers.push(oldWorker);
    const { workflowId } = await client.submit({ prompt: "old session" });
    await waitFor("the tool to run", () => linesOf(sideFile).length === 1);
    await oldWorker.kill9();

    // The new build records another step sequence for the same tool, so another version.
    const newWorker = await startWorker("new", { ...env, TOOL_VARIANT: "rerunnable" });
    workers.push(newWorker);
    expect(newWorker.version).not.toBe(oldWorker.version);
    expect(newWorker.version).toMatch(/^goat-\d+\.\d+\.\d+-[0-9a-f]{12}$/);

    // New sessions run on the new build; the old one is left alone well past the takeover delay.
    const fresh = await client.submit({ prompt: "new session" });
    expect(await client.result(fresh.workflowId)).toMatchObject({ result: "done new session" });
    await sleep(2_000); // deadAfterMs is 1 s and the new worker sweeps every 250 ms
    expect(await client.show(workflowId)).toMatchObject({
      status: "PENDING",
      executorId: "old",
      applicationVersion: oldWorker.version,
    });
    expect(await client.versions()).toContainEqual({
      applicationVersion: oldWorker.version,
      status: "PENDING",
      count: 1,
    });
    expect((await client.list({ applicationVersion: newWorker.version })).map((s) => s.workflowId)).toEqual([
      fresh.workflowId,
    ]);

    // Moved explicitly, the new build replays it, meets the changed step, and ends it visibly.
    const before = mock.requests.filter((r) => firstPrompt(r) === "old session").length;
    expect(await client.moveVersion(oldWorker.version, newWorker.version)).toEqual([workflowId]);
    await waitFor("the session to end", async () => (await client.status(workflowId)) === "ERROR");
    const shown = await client.show(workflowId);
    expect(shown?.error).toMatch(/step|determinis/i);
    // The model was not asked again: no request carries the engine's error as a tool result.
    const after = mock.requests.filter((r) => firstPrompt(r) === "old session");
    expect(after.length).toBe(before);
    expect(JSON.stringify(after.map((r) => r.body.messages))).not.toMatch(/DBOS|failed/);
    expect(linesOf(sideFile)).toEqual(["old"]);
    mock.setWhenEmpty(reply.text("unused"));
  }, 90_000);
});
