/**
 * A session's life heard from the database, not polled: a worker whose queue poll is ten seconds
 * starts a submitted session at once, a client whose result poll is ten seconds has the result at
 * once, and a follower ends as soon as the session does (not at its next poll). Before, each of these
 * waited for its poll.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDurableClient, type DurableClient } from "../../src/dbos/client.js";
import { followMessages } from "../../src/dbos/message-log.js";
import { tempDir } from "../session/fixtures.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { findPostgres } from "../support/postgres.js";
import { sharedPostgres } from "../support/shared-postgres.js";
import { startWorker, type WorkerProcess } from "./helpers.js";

const found = findPostgres();
const missing = "missing" in found ? found.missing : undefined;
if (missing) describe("session signals", () => it.skip(missing, () => {}));

/** Far longer than any step here takes: a wait this long means the signal was not heard. */
const SLOW_POLL_MS = 10_000;

describe.skipIf(missing !== undefined)("session signals", () => {
  let mock: MockProvider;
  let worker: WorkerProcess;
  let client: DurableClient;
  let databaseUrl: string;
  let cleanup: () => void;

  beforeAll(async () => {
    const server = await sharedPostgres();
    mock = await startMockProvider();
    const temp = tempDir("goat-signals-");
    cleanup = temp.cleanup;
    databaseUrl = await server.createDatabase("signals");
    worker = await startWorker("signals", {
      DATABASE_URL: databaseUrl,
      ANTHROPIC_BASE_URL: mock.anthropicBaseURL,
      SIDE_FILE: `${temp.dir}/side.lines`,
      POLL_MS: String(SLOW_POLL_MS),
    });
    client = await createDurableClient({ databaseUrl });
  }, 90_000);
  afterAll(async () => {
    await worker?.kill9();
    await client?.close();
    await mock?.close();
    cleanup?.();
  });

  it("starts a queued session without waiting for the queue poll, and the client hears its end", async () => {
    mock.setWhenEmpty(reply.text("signalled"));
    for (let i = 0; i < 3; i++) {
      const submittedAt = Date.now();
      const { workflowId } = await client.submit({ prompt: `quick ${i}` });
      const result = await client.result(workflowId, { pollMs: SLOW_POLL_MS });
      expect(result?.result).toBe("signalled");
      expect(Date.now() - submittedAt).toBeLessThan(SLOW_POLL_MS / 2);
    }
  }, 60_000);

  it("ends a follower when the session ends, not at the follower's next poll", async () => {
    mock.setWhenEmpty(reply.text("then quiet"));
    // After its result the session waits a second for a follow-up that never comes, then ends: no
    // message marks that end, only the session's status.
    const { workflowId } = await client.submit({ prompt: "wait then end", followUpWaitSeconds: 1 });
    const types: string[] = [];
    let resultAt = 0;
    for await (const message of followMessages(
      databaseUrl,
      "goat",
      workflowId,
      async () => ["SUCCESS", "ERROR", "CANCELLED"].includes(await client.status(workflowId)),
      { pollMs: SLOW_POLL_MS },
    )) {
      types.push(message.type);
      if (message.type === "result") resultAt = Date.now();
    }
    expect(types.at(-1)).toBe("result");
    expect(Date.now() - resultAt).toBeLessThan(SLOW_POLL_MS / 2);
  }, 60_000);
});
