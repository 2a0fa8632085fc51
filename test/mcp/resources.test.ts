/**
 * MCP resources through the manager, for a stdio server (a real child process), a Streamable HTTP
 * server on 127.0.0.1 and an in-process `McpServer`: listing, reading text and binary items, clear
 * errors for a server that is unknown or has no resources, and Claude Code's two resource tools,
 * offered only while a connected server has resources.
 */
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMcpManager } from "../../src/mcp/manager.js";
import type { McpManager } from "../../src/mcp/types.js";
import { runTool } from "../../src/tools/define-tool.js";
import { disposeToolSessionState } from "../../src/tools/types.js";
import { firstText, PNG_1X1, RESOURCE_FIXTURES, toolContext, writeStdioServer } from "./helpers.js";

let dir: string;
let withResources: string;
let withoutResources: string;
const cleanups: Array<() => Promise<void> | void> = [];
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "goat-mcp-res-"));
  withResources = writeStdioServer(fs.mkdtempSync(path.join(dir, "a-")), { resources: true });
  withoutResources = writeStdioServer(fs.mkdtempSync(path.join(dir, "b-")));
});
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function manager(servers: Parameters<typeof createMcpManager>[0]["servers"]): McpManager {
  const m = createMcpManager({ servers, cwd: dir, connectTimeoutMs: 10_000 });
  cleanups.push(() => m.close());
  return m;
}

/** An McpServer offering the fixture resources, built in this process. */
function resourceServer(): McpServer {
  const server = new McpServer({ name: "res", version: "1.0.0" });
  for (const r of Object.values(RESOURCE_FIXTURES)) {
    server.registerResource(
      r.name,
      r.uri,
      { mimeType: r.mimeType, description: `the ${r.name}` },
      async (uri) => ({
        contents: [
          "text" in r
            ? { uri: uri.href, mimeType: r.mimeType, text: r.text }
            : { uri: uri.href, mimeType: r.mimeType, blob: r.blob },
        ],
      }),
    );
  }
  return server;
}

/** A Streamable HTTP server on 127.0.0.1 offering the fixture resources. */
async function httpResourceServer(): Promise<string> {
  const httpServer = http.createServer(async (req, res) => {
    const server = resourceServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`;
}

describe("MCP resources", () => {
  it("are listed and read from stdio, HTTP and in-process servers alike", async () => {
    const url = await httpResourceServer();
    const m = manager({
      stdio: { command: process.execPath, args: [withResources] },
      web: { type: "http", url },
      local: { type: "sdk", name: "local", instance: resourceServer() },
    });
    await m.ready();
    expect(m.status().map((s) => s.status)).toEqual(["connected", "connected", "connected"]);
    const listed = await m.listResources();
    for (const server of ["stdio", "web", "local"]) {
      expect(listed.filter((r) => r.server === server)).toEqual([
        { server, uri: "file:///notes.txt", name: "notes", mimeType: "text/plain", description: "the notes" },
        { server, uri: "file:///pixel.png", name: "pixel", mimeType: "image/png", description: "the pixel" },
        {
          server,
          uri: "ui://widget/page.html",
          name: "widget",
          mimeType: "text/html",
          description: "the widget",
        },
      ]);
      expect(await m.readResource(server, "file:///notes.txt")).toEqual({
        contents: [{ uri: "file:///notes.txt", mimeType: "text/plain", text: "remember the milk" }],
      });
      const image = await m.readResource(server, "file:///pixel.png");
      expect(image.contents[0]).toMatchObject({ mimeType: "image/png", blob: PNG_1X1 });
    }
    expect((await m.listResources("web")).map((r) => r.server)).toEqual(["web", "web", "web"]);
  });

  it("says why for an unknown server, one without resources, and a resource the server does not have", async () => {
    const m = manager({
      plain: { command: process.execPath, args: [withoutResources] },
      res: { command: process.execPath, args: [withResources] },
    });
    await m.ready();
    await expect(m.readResource("nope", "file:///x")).rejects.toThrow(
      'no MCP server named "nope" (servers with resources: res)',
    );
    await expect(m.listResources("plain")).rejects.toThrow('MCP server "plain" offers no resources');
    await expect(m.readResource("res", "file:///absent.txt")).rejects.toThrow(/absent\.txt/);
    // Listing every server's resources skips the ones that have none.
    expect((await m.listResources()).every((r) => r.server === "res")).toBe(true);
  });

  it("offers ListMcpResourcesTool and ReadMcpResourceTool only while a server has resources", async () => {
    const plain = manager({ plain: { command: process.execPath, args: [withoutResources] } });
    await plain.ready();
    expect(plain.tools().map((t) => t.name)).not.toContain("ListMcpResourcesTool");

    const m = manager({ res: { command: process.execPath, args: [withResources] } });
    await m.ready();
    const list = m.tools().find((t) => t.name === "ListMcpResourcesTool");
    const read = m.tools().find((t) => t.name === "ReadMcpResourceTool");
    expect(list && read).toBeTruthy();
    const ctx = toolContext();
    const listed = await runTool(list!, { server: "res" }, ctx);
    expect(JSON.parse(firstText(listed))).toHaveLength(3);
    const note = await runTool(read!, { server: "res", uri: "file:///notes.txt" }, ctx);
    expect(note.details).toEqual({
      contents: [{ uri: "file:///notes.txt", mimeType: "text/plain", text: "remember the milk" }],
    });
    // A binary item is saved to a file rather than put in the context as base64.
    const image = await runTool(read!, { server: "res", uri: "file:///pixel.png" }, ctx);
    const saved = (image.details as { contents: Array<{ blobSavedTo?: string }> }).contents[0].blobSavedTo;
    expect(saved).toBeTruthy();
    expect(fs.readFileSync(saved!).equals(Buffer.from(PNG_1X1, "base64"))).toBe(true);
    expect(firstText(image)).not.toContain(PNG_1X1);
    const missing = await runTool(read!, { server: "nope", uri: "file:///x" }, ctx);
    expect(missing.isError).toBe(true);
    expect(firstText(missing)).toContain('no MCP server named "nope"');
    await m.toggle("res", false);
    expect(m.tools().map((t) => t.name)).not.toContain("ReadMcpResourceTool");
    // The saved file lives in the session's temp directory, which goes when the session ends.
    await disposeToolSessionState(ctx.state);
    expect(fs.existsSync(saved!)).toBe(false);
  });
});
