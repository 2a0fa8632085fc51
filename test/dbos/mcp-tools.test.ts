/**
 * MCP tools in a durable session: a real stdio MCP server started by the worker that runs the
 * session, real PostgreSQL, real worker processes (the first killed with SIGKILL mid-call), the mock
 * provider over HTTP. A finished MCP call is not made again after the takeover; the cut one is
 * answered "interrupted"; the new worker starts its own server and the session goes on with it.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDurableClient, type DurableClient } from "../../src/dbos/client.js";
import type { MockRequest } from "../../src/testing/mock-provider.js";
import { fixtureRuntimeImport } from "../mcp/helpers.js";
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
if (missing) describe("MCP tools in durable sessions", () => it.skip(missing, () => {}));

/**
 * A stdio MCP server whose `note` tool appends its text to `notesFile` (with the server's pid) and
 * waits `waitMs`: a side effect the test counts.
 */
function writeNoteServer(dir: string, notesFile: string): string {
  const file = join(dir, "note-server.mjs");
  writeFileSync(
    file,
    `
import { appendFileSync } from "node:fs";
${fixtureRuntimeImport()}
const server = new McpServer({ name: "notes", version: "1.0.0" });
server.registerTool("note", { description: "Notes a line", inputSchema: { text: z.string(), waitMs: z.number().optional() } },
  async ({ text, waitMs }) => {
    appendFileSync(${JSON.stringify(notesFile)}, text + " " + process.pid + "\\n");
    if (waitMs) await new Promise((resolve) => setTimeout(resolve, waitMs));
    return { content: [{ type: "text", text: "noted " + text }] };
  });
await server.connect(new StdioServerTransport());
`,
  );
  return file;
}

describe.skipIf(missing !== undefined)("MCP tools in durable sessions", () => {
  let server: SharedPostgres;
  let mock: MockProvider;
  let dir: string;
  let cleanup: () => void;
  const workers: WorkerProcess[] = [];
  const clients: DurableClient[] = [];

  beforeAll(async () => {
    server = await sharedPostgres();
    mock = await startMockProvider();
    ({ dir, cleanup } = tempDir("goat-durable-mcp-"));
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

  it("runs each MCP call once as a step, and a takeover answers the cut call without repeating the finished one", async () => {
    const databaseUrl = await server.createDatabase("mcp1");
    const notesFile = join(dir, "notes");
    const env = {
      DATABASE_URL: databaseUrl,
      ANTHROPIC_BASE_URL: mock.anthropicBaseURL,
      SIDE_FILE: join(dir, "mcp1.lines"),
      MCP_SERVER: writeNoteServer(dir, notesFile),
    };
    const client = await createDurableClient({ databaseUrl });
    clients.push(client);
    let lastRequest: MockRequest | undefined;
    mock.setWhenEmpty((request) => {
      lastRequest = request;
      const done = toolResultCount(request);
      if (done === 0) return reply.toolCalls([{ name: "mcp__fix__note", input: { text: "one" } }]);
      if (done === 1)
        return reply.toolCalls([{ name: "mcp__fix__note", input: { text: "two", waitMs: 60_000 } }]);
      if (done === 2) return reply.toolCalls([{ name: "mcp__fix__note", input: { text: "three" } }]);
      return reply.text("noted all");
    });
    const first = await startWorker("c1", env);
    workers.push(first);
    const { workflowId } = await client.submit({ prompt: "take notes" });
    await waitFor("the second call", () => linesOf(notesFile).some((l) => l.startsWith("two ")));
    await first.kill9();

    workers.push(await startWorker("c2", env));
    expect(await client.result(workflowId)).toMatchObject({ subtype: "success", result: "noted all" });
    const notes = linesOf(notesFile).map((l) => l.split(" "));
    expect(notes.map(([text]) => text)).toEqual(["one", "two", "three"]);
    // The new worker started a server of its own for the third call.
    expect(notes[2][1]).not.toBe(notes[0][1]);
    expect(resultTexts(lastRequest as MockRequest)).toEqual([
      "noted one",
      expect.stringMatching(/interrupted/i),
      "noted three",
    ]);
  }, 90_000);

  it("keeps the server's toolTimeoutMs for its calls", async () => {
    const databaseUrl = await server.createDatabase("mcp2");
    const env = {
      DATABASE_URL: databaseUrl,
      ANTHROPIC_BASE_URL: mock.anthropicBaseURL,
      SIDE_FILE: join(dir, "mcp2.lines"),
      MCP_SERVER: writeNoteServer(dir, join(dir, "notes2")),
      MCP_TOOL_TIMEOUT_MS: "300",
    };
    const client = await createDurableClient({ databaseUrl });
    clients.push(client);
    let lastRequest: MockRequest | undefined;
    mock.setWhenEmpty((request) => {
      lastRequest = request;
      return toolResultCount(request) === 0
        ? reply.toolCalls([{ name: "mcp__fix__note", input: { text: "slow", waitMs: 5_000 } }])
        : reply.text("gave up");
    });
    workers.push(await startWorker("t1", env));
    const { workflowId } = await client.submit({ prompt: "note slowly" });
    expect(await client.result(workflowId)).toMatchObject({ subtype: "success", result: "gave up" });
    expect(resultTexts(lastRequest as MockRequest)).toEqual([expect.stringMatching(/time limit of 300 ms/)]);
  }, 60_000);
});
