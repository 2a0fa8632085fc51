/**
 * Bash's spill file in a durable session outlives its worker: real PostgreSQL, real worker processes
 * (the first killed with SIGKILL and its spill file removed, as on another machine), real Bash. The
 * whole output is in the session database, and a Read of the spill path on the worker that took the
 * session over reads it from there.
 */
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDurableClient, type DurableClient } from "../../src/dbos/client.js";
import type { MockRequest } from "../../src/testing/mock-provider.js";
import { tempDir } from "../session/fixtures.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { findPostgres } from "../support/postgres.js";
import { type SharedPostgres, sharedPostgres } from "../support/shared-postgres.js";
import {
  linesOf,
  resultTexts,
  startWorker,
  toolResultCount,
  type WorkerProcess,
  waitFor,
} from "./helpers.js";

const found = findPostgres();
const missing = "missing" in found ? found.missing : undefined;
if (missing) describe("a durable Bash's spill file", () => it.skip(missing, () => {}));

describe.skipIf(missing !== undefined)("a durable Bash's spill file", () => {
  let server: SharedPostgres;
  let mock: MockProvider;
  let dir: string;
  let cleanup: () => void;
  const workers: WorkerProcess[] = [];
  const clients: DurableClient[] = [];

  beforeAll(async () => {
    server = await sharedPostgres();
    mock = await startMockProvider();
    ({ dir, cleanup } = tempDir("goat-spill-"));
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

  it("is read from the session database after a takeover, and `goat durable output` has it whole", async () => {
    const databaseUrl = await server.createDatabase("spill1");
    const sideFile = join(dir, "spill1.lines");
    const env = {
      DATABASE_URL: databaseUrl,
      ANTHROPIC_BASE_URL: mock.anthropicBaseURL,
      SIDE_FILE: sideFile,
      WITH_BASH: "1",
      WITH_READ: "1",
    };
    const client = await createDurableClient({ databaseUrl });
    clients.push(client);
    let spillPath = "";
    let outputId = "";
    mock.setWhenEmpty((request) => {
      const done = toolResultCount(request);
      if (done === 0) return reply.toolCalls([{ name: "Bash", input: { command: "seq 1 20000" } }]);
      if (done === 1) {
        const bash = resultTexts(request)[0];
        spillPath = /saved to (\S+\.log)/.exec(bash)?.[1] ?? "";
        outputId = /as tool output (\S+?),/.exec(bash)?.[1] ?? "";
        // Holds the session on this worker until the test has killed it.
        return reply.toolCalls([{ name: "append_line", input: { text: "held", waitMs: 60_000 } }]);
      }
      if (done === 2)
        return reply.toolCalls([{ name: "Read", input: { file_path: spillPath, offset: 19_998, limit: 3 } }]);
      return reply.text("read the spill");
    });
    const first = await startWorker("s1", env);
    workers.push(first);
    const { workflowId } = await client.submit({
      prompt: "make a long output",
      // The spill file lies outside the working directory, where Read would ask.
      options: { permissionMode: "bypassPermissions" },
    });
    await waitFor("the held call", () => linesOf(sideFile).includes("held"));
    await first.kill9();
    expect(spillPath).not.toBe("");
    // The dead worker's disk is gone with it.
    rmSync(dirname(spillPath), { recursive: true, force: true });

    workers.push(await startWorker("s2", env));
    expect(await client.result(workflowId)).toMatchObject({ subtype: "success", result: "read the spill" });
    const read = resultTexts(mock.requests.at(-1) as MockRequest).at(-1) ?? "";
    expect(read).toMatch(/19998\n.*19999\n.*20000/s);
    expect(outputId).not.toBe("");
    const whole = await client.storedOutput(outputId);
    expect(whole?.split("\n").filter(Boolean)).toHaveLength(20_000);
  }, 90_000);
});
