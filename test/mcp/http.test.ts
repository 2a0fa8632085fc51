/**
 * The manager against MCP servers over HTTP on 127.0.0.1: Streamable HTTP and the older HTTP+SSE
 * transport, with configured headers reaching the server, and a URL nobody listens on.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createMcpManager } from "../../src/mcp/manager.js";
import type { McpManager } from "../../src/mcp/types.js";
import { runTool } from "../../src/tools/define-tool.js";
import { toolContext } from "./helpers.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

function makeServer(seenAuth: string[]): McpServer {
  const server = new McpServer({ name: "http-fixture", version: "1.0.0" });
  server.registerTool(
    "add",
    {
      description: "Adds",
      inputSchema: { a: z.number(), b: z.number() },
      annotations: { readOnlyHint: true },
    },
    async ({ a, b }, extra) => {
      seenAuth.push(String(extra.requestInfo?.headers.authorization ?? ""));
      return { content: [{ type: "text", text: String(a + b) }] };
    },
  );
  return server;
}

async function listen(handler: http.RequestListener): Promise<string> {
  const httpServer = http.createServer(handler);
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
}

function track(m: McpManager): McpManager {
  cleanups.push(() => m.close());
  return m;
}

describe("HTTP MCP servers", () => {
  it("calls a Streamable HTTP server's tools, sending the configured headers", async () => {
    const seenAuth: string[] = [];
    const base = await listen(async (req, res) => {
      // Stateless: a fresh server and transport per request.
      const server = makeServer(seenAuth);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on("close", () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res);
    });
    const m = track(
      createMcpManager({
        servers: { calc: { type: "http", url: `${base}/mcp`, headers: { Authorization: "Bearer t0ken" } } },
        cwd: process.cwd(),
        connectTimeoutMs: 10_000,
      }),
    );
    await m.ready();
    expect(m.status()[0]).toMatchObject({ status: "connected", serverInfo: { name: "http-fixture" } });
    const add = m.tools().find((t) => t.name === "mcp__calc__add");
    expect(add?.sideEffect).toBe("none");
    expect(await runTool(add!, { a: 2, b: 40 }, toolContext())).toEqual({
      content: [{ type: "text", text: "42" }],
    });
    expect(seenAuth).toEqual(["Bearer t0ken"]);
  });

  it("calls an HTTP+SSE server's tools, sending the configured headers on both requests", async () => {
    const seenAuth: string[] = [];
    const streamAuth: string[] = [];
    const transports = new Map<string, SSEServerTransport>();
    const base = await listen(async (req, res) => {
      const url = new URL(req.url ?? "/", "http://x");
      if (req.method === "GET" && url.pathname === "/sse") {
        streamAuth.push(String(req.headers.authorization ?? ""));
        const transport = new SSEServerTransport("/messages", res);
        transports.set(transport.sessionId, transport);
        await makeServer(seenAuth).connect(transport);
        return;
      }
      const transport = transports.get(url.searchParams.get("sessionId") ?? "");
      if (!transport) return void res.writeHead(404).end();
      await transport.handlePostMessage(req, res);
    });
    const m = track(
      createMcpManager({
        servers: { legacy: { type: "sse", url: `${base}/sse`, headers: { Authorization: "Bearer s3" } } },
        cwd: process.cwd(),
        connectTimeoutMs: 10_000,
      }),
    );
    await m.ready();
    expect(m.status()[0].status).toBe("connected");
    const add = m.tools().find((t) => t.name === "mcp__legacy__add");
    expect(await runTool(add!, { a: 1, b: 2 }, toolContext())).toEqual({
      content: [{ type: "text", text: "3" }],
    });
    expect(streamAuth).toEqual(["Bearer s3"]);
    expect(seenAuth).toEqual(["Bearer s3"]);
  });

  it("marks an HTTP server nobody listens on as failed", async () => {
    const base = await listen((_req, res) => res.writeHead(200).end());
    const port = new URL(base).port;
    await cleanups.pop()?.();
    const m = track(
      createMcpManager({
        servers: { gone: { type: "http", url: `http://127.0.0.1:${port}/mcp` } },
        cwd: process.cwd(),
        connectTimeoutMs: 5000,
      }),
    );
    await m.ready();
    expect(m.status()[0].status).toBe("failed");
    expect(m.status()[0].error).toBeTruthy();
    expect(m.tools()).toEqual([]);
  });
});
