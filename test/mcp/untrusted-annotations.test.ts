/**
 * An MCP server's annotations are its own claims: a tool that declares `readOnlyHint` still asks in
 * every mode but bypassPermissions unless a rule allows it (by tool, `mcp__server__*` or `mcp__server`).
 * Sessions run against a real stdio fixture server and an in-process `createSdkMcpServer` one, through
 * `query()` and the mock provider, so the whole gate (engine, tool gate, loop) is what is tested.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createSdkMcpServer, tool } from "../../src/mcp/sdk-server.js";
import type { PermissionMode } from "../../src/permissions/types.js";
import type { QueryOptions } from "../../src/sdk/options.js";
import { query } from "../../src/sdk/query.js";
import { collect, mockOptions, tempDir, toolResultsSent } from "../runtime/helpers.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { RESOURCE_FIXTURES, writeStdioServer } from "./helpers.js";

let mock: MockProvider;
let dir: string;
let serverFile: string;
beforeAll(async () => {
  mock = await startMockProvider();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "goat-mcp-annotations-"));
  serverFile = writeStdioServer(dir);
});
afterAll(async () => {
  await mock.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  mock.requests.length = 0;
});

/** A host's in-process tool that claims to be read-only; `ran` records each call it really served. */
function readOnlyServer(ran: string[]) {
  return createSdkMcpServer({
    name: "srv",
    tools: [
      tool(
        "peek",
        "Claims to only read",
        { what: z.string() },
        async ({ what }) => {
          ran.push(what);
          return { content: [{ type: "text", text: `peeked at ${what}` }] };
        },
        { annotations: { readOnlyHint: true, openWorldHint: false } },
      ),
    ],
  });
}

/** Runs one model turn that calls `toolName`, and returns what the model was sent back for it. */
async function callOnce(toolName: string, input: Record<string, unknown>, options: QueryOptions) {
  mock.enqueue(reply.toolCalls([{ name: toolName, input, id: "c1" }]), reply.text("done"));
  await collect(query({ prompt: "go", options: mockOptions(mock, "anthropic", options) }));
  return toolResultsSent(mock.requests[1].body)[0];
}

const stdio = () => ({ fixture: { command: process.execPath, args: [serverFile] } });

describe("MCP annotations never grant permission", () => {
  it("asks for a stdio server's readOnlyHint tool in default mode (denied with no canUseTool)", async () => {
    const sent = await callOnce(
      "mcp__fixture__echo",
      { msg: "secret" },
      { permissionMode: "default", mcpServers: stdio() },
    );
    expect(sent.isError).toBe(true);
    expect(sent.content).toContain("Permission to use mcp__fixture__echo is required");
    expect(sent.content).not.toContain("echo: secret");
  });

  it("runs it when a rule names the tool, and asks canUseTool otherwise", async () => {
    const allowed = await callOnce(
      "mcp__fixture__echo",
      { msg: "hi" },
      { permissionMode: "default", mcpServers: stdio(), allowedTools: ["mcp__fixture__echo"] },
    );
    expect(allowed).toMatchObject({ isError: false, content: "echo: hi" });

    mock.requests.length = 0;
    const asked: string[] = [];
    const answered = await callOnce(
      "mcp__fixture__echo",
      { msg: "again" },
      {
        permissionMode: "default",
        mcpServers: stdio(),
        canUseTool: async (name) => {
          asked.push(name);
          return { behavior: "allow" };
        },
      },
    );
    expect(asked).toEqual(["mcp__fixture__echo"]);
    expect(answered.content).toBe("echo: again");
  });

  it("asks for an in-process tool's readOnlyHint too, as the Claude Agent SDK does; server rules allow it", async () => {
    const ran: string[] = [];
    const denied = await callOnce(
      "mcp__srv__peek",
      { what: "a" },
      { permissionMode: "default", mcpServers: { srv: readOnlyServer(ran) } },
    );
    expect(denied.isError).toBe(true);
    expect(ran).toEqual([]);
    for (const rule of ["mcp__srv__peek", "mcp__srv__*", "mcp__srv"]) {
      mock.requests.length = 0;
      const sent = await callOnce(
        "mcp__srv__peek",
        { what: rule },
        { permissionMode: "default", mcpServers: { srv: readOnlyServer(ran) }, allowedTools: [rule] },
      );
      expect(sent.content).toBe(`peeked at ${rule}`);
    }
    expect(ran).toEqual(["mcp__srv__peek", "mcp__srv__*", "mcp__srv"]);
  });

  it.each<[PermissionMode, boolean]>([
    ["acceptEdits", false],
    ["plan", false],
    ["dontAsk", false],
    ["bypassPermissions", true],
  ])("in %s mode a readOnlyHint tool with no rule runs: %s", async (mode, runs) => {
    const ran: string[] = [];
    const sent = await callOnce(
      "mcp__srv__peek",
      { what: mode },
      {
        permissionMode: mode,
        mcpServers: { srv: readOnlyServer(ran) },
      },
    );
    expect(ran).toEqual(runs ? [mode] : []);
    expect(sent.isError).toBe(!runs);
  });

  it("in plan mode asks the user about a readOnlyHint tool instead of running it", async () => {
    const ran: string[] = [];
    const asked: string[] = [];
    const sent = await callOnce(
      "mcp__srv__peek",
      { what: "plan" },
      {
        permissionMode: "plan",
        mcpServers: { srv: readOnlyServer(ran) },
        canUseTool: async (name) => {
          asked.push(name);
          return { behavior: "deny", message: "not while planning" };
        },
      },
    );
    expect(asked).toEqual(["mcp__srv__peek"]);
    expect(ran).toEqual([]);
    expect(sent.content).toContain("not while planning");
  });
});

describe("MCP resource tools", () => {
  it("ReadMcpResourceTool asks in default mode: the uri it sends is the model's choice", async () => {
    const sent = await callOnce(
      "ReadMcpResourceTool",
      { server: "fixture", uri: RESOURCE_FIXTURES.note.uri },
      {
        permissionMode: "default",
        mcpServers: {
          fixture: {
            command: process.execPath,
            args: [writeStdioServer(tempDir("goat-mcp-res-"), { resources: true })],
          },
        },
      },
    );
    expect(sent.isError).toBe(true);
    expect(sent.content).toContain("Permission to use ReadMcpResourceTool is required");
  });
});
