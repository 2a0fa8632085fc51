/**
 * The operator's calls on durable sessions: resume a cancelled session at the step where it stopped
 * (its cut tool call is not run again), fork a finished one from a step (the steps before are kept,
 * the rest runs again), de-duplication by a caller's id, and a per-session deadline.
 */
import { join } from "node:path";
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
if (missing) describe("operating durable sessions", () => it.skip(missing, () => {}));

describe.skipIf(missing !== undefined)("operating durable sessions", () => {
  let server: SharedPostgres;
  let mock: MockProvider;
  let dir: string;
  let cleanup: () => void;
  let client: DurableClient;
  let sideFile: string;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    server = await sharedPostgres();
    mock = await startMockProvider();
    ({ dir, cleanup } = tempDir("goat-ops-"));
    const databaseUrl = await server.createDatabase("ops");
    sideFile = join(dir, "ops.lines");
    client = await createDurableClient({ databaseUrl });
    workers.push(
      await startWorker("ops", {
        DATABASE_URL: databaseUrl,
        ANTHROPIC_BASE_URL: mock.anthropicBaseURL,
        SIDE_FILE: sideFile,
      }),
    );
  }, 90_000);
  afterEach(() => mock.setWhenEmpty(reply.text("unused")));
  afterAll(async () => {
    for (const w of workers.splice(0)) await w.kill9();
    await client?.close();
    await mock?.close();
    cleanup?.();
  });

  const requestsOf = (prompt: string) => mock.requests.filter((r) => firstPrompt(r) === prompt);

  it("resumes a cancelled session at its step: the cut call is not run again and the model is told", async () => {
    mock.setWhenEmpty((request) =>
      toolResultCount(request) === 0 && firstPrompt(request) === "cut"
        ? reply.toolCalls([{ name: "append_line", input: { text: "cut", waitMs: 60_000 } }])
        : reply.text("carried on"),
    );
    const { workflowId } = await client.submit({ prompt: "cut" });
    await waitFor("the tool to start", () => linesOf(sideFile).includes("cut"));
    await client.cancel(workflowId);
    await waitFor("the cancel", async () => (await client.status(workflowId)) === "CANCELLED");

    const resumed = await client.resume(workflowId);
    expect(resumed.workflowId).not.toBe(workflowId);
    expect(await client.result(resumed.workflowId)).toMatchObject({
      subtype: "success",
      result: "carried on",
    });
    expect(linesOf(sideFile).filter((l) => l === "cut")).toHaveLength(1);
    const last = requestsOf("cut").at(-1);
    const answer = JSON.stringify(last?.body.messages.at(-1));
    expect(answer).toContain("tool_result");
    expect(await client.show(resumed.workflowId)).toMatchObject({ forkedFrom: workflowId });
  }, 60_000);

  it("forks a finished session from a step: earlier steps are kept, later ones run again", async () => {
    let call = 0;
    mock.setWhenEmpty((request) => {
      if (firstPrompt(request) !== "forkable") return reply.text("unused");
      if (toolResultCount(request) === 0)
        return reply.toolCalls([{ name: "append_line", input: { text: "fork-tool" } }]);
      return reply.text(`answer ${++call}`);
    });
    const original = await client.submit({ prompt: "forkable" });
    expect(await client.result(original.workflowId)).toMatchObject({ result: "answer 1" });
    const steps = await client.show(original.workflowId);
    expect(steps?.steps).toBeGreaterThanOrEqual(3);
    const modelCalls = requestsOf("forkable").length;

    // Step 0 is the first model call; the fork keeps it and the tool call, and asks the model again.
    const toolStep = 2;
    const fork = await client.fork(original.workflowId, toolStep + 1);
    expect(await client.result(fork.workflowId)).toMatchObject({ result: "answer 2" });
    expect(requestsOf("forkable").length).toBe(modelCalls + 1);
    expect(linesOf(sideFile).filter((l) => l === "fork-tool")).toHaveLength(1);
    expect(fork.sessionId).not.toBe(original.sessionId);
  }, 60_000);

  it("refuses a second session with the same de-duplication id while the first is queued or running", async () => {
    mock.setWhenEmpty((request) =>
      toolResultCount(request) === 0 && firstPrompt(request) === "dedup"
        ? reply.toolCalls([{ name: "append_line", input: { text: "dedup", waitMs: 1_000 } }])
        : reply.text("once"),
    );
    const first = await client.submit({ prompt: "dedup" }, { deduplicationId: "job-7" });
    await expect(client.submit({ prompt: "dedup" }, { deduplicationId: "job-7" })).rejects.toMatchObject({
      code: "duplicate_session",
    });
    expect(await client.result(first.workflowId)).toMatchObject({ result: "once" });
  }, 60_000);

  it("cancels a session that outlives its deadline", async () => {
    mock.setWhenEmpty((request) =>
      toolResultCount(request) === 0 && firstPrompt(request) === "late"
        ? reply.toolCalls([{ name: "append_line", input: { text: "late", waitMs: 60_000 } }])
        : reply.text("too late"),
    );
    const started = Date.now();
    const { workflowId } = await client.submit({ prompt: "late" }, { deadlineMs: 1_500 });
    await waitFor("the deadline", async () => (await client.status(workflowId)) === "CANCELLED", 15_000);
    expect(Date.now() - started).toBeLessThan(10_000);
    await waitFor("the tool to stop", () => linesOf(sideFile).includes("late"));
  }, 60_000);
});
