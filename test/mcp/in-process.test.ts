/**
 * In-process MCP servers made with createSdkMcpServer (tools from `tool()` and from `defineTool`),
 * and the manager's lifecycle: setServers, toggle, reconnect, the session signal, and lazy loading.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createMcpManager } from "../../src/mcp/manager.js";
import { createSdkMcpServer, tool } from "../../src/mcp/sdk-server.js";
import type { McpManager } from "../../src/mcp/types.js";
import { defineTool, runTool } from "../../src/tools/define-tool.js";
import { alive, firstText, toolContext, waitFor, writeStdioServer } from "./helpers.js";

let dir: string;
let serverFile: string;
const managers: McpManager[] = [];
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "goat-mcp-inproc-"));
  serverFile = writeStdioServer(dir);
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function manager(
  servers: Parameters<typeof createMcpManager>[0]["servers"],
  signal?: AbortSignal,
): McpManager {
  const m = createMcpManager({ servers, cwd: dir, signal, connectTimeoutMs: 10_000 });
  managers.push(m);
  return m;
}

const greet = tool(
  "greet",
  "Greets someone",
  { who: z.string() },
  async ({ who }, extra) => ({
    content: [
      {
        type: "text",
        text: `hello ${who} (signal: ${(extra as { signal: unknown }).signal instanceof AbortSignal})`,
      },
    ],
  }),
  { annotations: { readOnlyHint: true } },
);

const whoAmI = defineTool({
  name: "who_am_i",
  description: "Reports the calling session",
  inputSchema: z.object({ tag: z.string() }),
  sideEffect: "none",
  execute: async ({ tag }, ctx) => ({
    content: `${tag}: ${ctx.sessionId}/${ctx.toolUseId}`,
    details: { files: ctx.state.readFiles.size },
  }),
});

const writer = defineTool({
  name: "writer",
  description: "Pretends to write",
  inputSchema: z.object({}),
  execute: async () => ({ content: "written" }),
});

const inProcess = () =>
  createSdkMcpServer({ name: "local", version: "9.9.9", tools: [greet, whoAmI, writer] });

describe("in-process MCP servers", () => {
  it("calls tools written with tool() through the in-memory transport", async () => {
    const m = manager({ local: inProcess() });
    await m.ready();
    expect(m.status()[0]).toMatchObject({
      status: "connected",
      serverInfo: { name: "local", version: "9.9.9" },
    });
    const t = m.tools().find((x) => x.name === "mcp__local__greet");
    expect(t?.sideEffect).toBe("none");
    expect(t?.jsonSchema).toMatchObject({ properties: { who: { type: "string" } }, required: ["who"] });
    expect(await runTool(t!, { who: "goat" }, toolContext())).toEqual({
      content: [{ type: "text", text: "hello goat (signal: true)" }],
    });
  });

  it("runs defineTool tools with the calling session's context and keeps their side-effect class", async () => {
    const m = manager({ local: inProcess() });
    await m.ready();
    const tools = new Map(m.tools().map((t) => [t.name, t]));
    expect(tools.get("mcp__local__who_am_i")?.sideEffect).toBe("none");
    expect(tools.get("mcp__local__writer")?.sideEffect).toBe("mutating");
    const ctx = toolContext(undefined, "toolu_xyz");
    ctx.state.readFiles.set("/a", { mtimeMs: 1, size: 1 });
    const result = await runTool(tools.get("mcp__local__who_am_i")!, { tag: "me" }, ctx);
    expect(result).toEqual({
      content: [{ type: "text", text: `me: ${ctx.sessionId}/toolu_xyz` }],
      details: { files: 1 },
    });
    const bad = await runTool(tools.get("mcp__local__who_am_i")!, { tag: 5 }, ctx);
    expect(bad.isError).toBe(true);
  });

  it("gives two managers of one config their own servers", async () => {
    const config = inProcess();
    const a = manager({ local: config });
    const b = manager({ local: config });
    await Promise.all([a.ready(), b.ready()]);
    expect([a.status()[0].status, b.status()[0].status]).toEqual(["connected", "connected"]);
    await a.close();
    const greetB = b.tools().find((x) => x.name === "mcp__local__greet")!;
    expect((await runTool(greetB, { who: "b" }, toolContext())).isError).toBeUndefined();
  });
});

describe("live McpServer instances", () => {
  it("accepts a caller-built McpServer and follows its tool list as it changes", async () => {
    const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
    const server = new McpServer({ name: "live", version: "1.0.0" });
    server.registerTool("first", { description: "First" }, async () => ({
      content: [{ type: "text", text: "1" }],
    }));
    const changes: number[] = [];
    const m = createMcpManager({
      servers: { live: { type: "sdk", name: "live", instance: server } },
      cwd: dir,
      onStatusChange: (s) => changes.push(s[0]?.tools?.length ?? 0),
    });
    managers.push(m);
    await m.ready();
    expect(m.tools().map((t) => t.name)).toEqual(["mcp__live__first"]);
    server.registerTool("second", { description: "Second" }, async () => ({
      content: [{ type: "text", text: "2" }],
    }));
    expect(await waitFor(() => m.tools().length === 2)).toBe(true);
    const second = m.tools().find((t) => t.name === "mcp__live__second")!;
    expect(firstText(await runTool(second, {}, toolContext()))).toBe("2");
    expect(changes).toEqual([1, 2]);
  });
});

describe("manager lifecycle", () => {
  it("setServers adds new servers, removes missing ones and kills removed stdio servers", async () => {
    const m = manager({ local: inProcess() });
    await m.ready();
    // A different instance is a changed config: removed and added again.
    const first = await m.setServers({ local: inProcess() });
    expect(first).toEqual({ added: ["local"], removed: ["local"], errors: {} });
    expect(m.status()[0].status).toBe("connected");
    const second = await m.setServers({ fx: { command: process.execPath, args: [serverFile] } });
    expect(second).toEqual({ added: ["fx"], removed: ["local"], errors: {} });
    expect(m.tools().some((t) => t.name.startsWith("mcp__local__"))).toBe(false);
    const spawn = m.tools().find((t) => t.name === "mcp__fx__spawn_child")!;
    const { pid } = JSON.parse(firstText(await runTool(spawn, {}, toolContext())));
    const third = await m.setServers({
      fx: { command: process.execPath, args: [serverFile] },
      bad: { command: process.execPath, args: ["-e", "process.exit(2)"] },
    });
    expect(third.added).toEqual(["bad"]);
    expect(third.removed).toEqual([]);
    expect(third.errors.bad).toMatch(/exited with code 2/);
    expect(alive(pid)).toBe(true);
    const fourth = await m.setServers({});
    expect(fourth.removed.sort()).toEqual(["bad", "fx"]);
    expect(await waitFor(() => !alive(pid))).toBe(true);
    expect(m.status()).toEqual([]);
  });

  it("keeps an unchanged server connected across setServers", async () => {
    const config = inProcess();
    const m = manager({ local: config });
    await m.ready();
    const result = await m.setServers({
      local: config,
      other: createSdkMcpServer({ name: "other", tools: [greet] }),
    });
    expect(result).toEqual({ added: ["other"], removed: [], errors: {} });
    expect(m.tools().map((t) => t.name)).toContain("mcp__other__greet");
    expect(m.tools().map((t) => t.name)).toContain("mcp__local__greet");
  });

  it("toggle disables a server and brings it back; reconnect restarts it", async () => {
    const m = manager({ local: inProcess() });
    await m.ready();
    await m.toggle("local", false);
    expect(m.status()[0]).toEqual({ name: "local", status: "disabled" });
    expect(m.tools()).toEqual([]);
    await m.toggle("local", true);
    expect(m.status()[0].status).toBe("connected");
    await m.reconnect("local");
    expect(m.status()[0].status).toBe("connected");
    expect(m.tools().length).toBe(3);
    await expect(m.toggle("nope", true)).rejects.toThrow(/no MCP server named "nope"/);
  });

  it("closes every server when the session's signal aborts, even while one is still starting", async () => {
    const controller = new AbortController();
    const pidFile = path.join(dir, "slow-start.pid");
    const script = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`;
    const m = manager(
      {
        fx: { command: process.execPath, args: [serverFile] },
        hang: { command: process.execPath, args: ["-e", script] },
      },
      controller.signal,
    );
    await waitFor(() => m.status()[0].status === "connected" && fs.existsSync(pidFile));
    const spawn = m.tools().find((t) => t.name === "mcp__fx__spawn_child")!;
    const { pid } = JSON.parse(firstText(await runTool(spawn, {}, toolContext())));
    const hangPid = Number(fs.readFileSync(pidFile, "utf8"));
    controller.abort();
    expect(await waitFor(() => !alive(pid) && !alive(hangPid))).toBe(true);
    expect(m.tools()).toEqual([]);
  });

  it("ready(timeout) returns after the bound while a server is still pending; close() kills it", async () => {
    const pidFile = path.join(dir, "pending.pid");
    const script = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`;
    const m = manager({ hang: { command: process.execPath, args: ["-e", script] } });
    const started = Date.now();
    await m.ready(200);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(m.status()[0].status).toBe("pending");
    expect(await waitFor(() => fs.existsSync(pidFile))).toBe(true);
    const pid = Number(fs.readFileSync(pidFile, "utf8"));
    await m.close();
    // close() resolves only once the process group is gone: no polling needed.
    expect(alive(pid)).toBe(false);
  });
});

describe("lazy loading", () => {
  it("no module reachable by static imports from src/mcp/index.ts imports the MCP SDK", () => {
    const seen = new Set<string>();
    const offenders: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = fs.readFileSync(file, "utf8");
      for (const match of text.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+"([^"]+)"/gms)) {
        const spec = match[1];
        if (spec.startsWith("@modelcontextprotocol/")) offenders.push(`${path.basename(file)} -> ${spec}`);
        if (spec.startsWith(".")) visit(path.resolve(path.dirname(file), spec.replace(/\.js$/, ".ts")));
      }
    };
    visit(path.resolve("src/mcp/index.ts"));
    expect([...seen].map((f) => path.basename(f))).toContain("manager.ts");
    expect([...seen].map((f) => path.basename(f))).not.toContain("connect.ts");
    expect(offenders).toEqual([]);
  });
});
