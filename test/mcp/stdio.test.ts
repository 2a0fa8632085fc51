/**
 * The manager against real stdio MCP servers run as child processes: tools listed and called,
 * results mapped, failures isolated, cancellation, and no process left behind.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createMcpManager } from "../../src/mcp/manager.js";
import type { McpManager } from "../../src/mcp/types.js";
import { runTool } from "../../src/tools/define-tool.js";
import type { Tool } from "../../src/tools/types.js";
import { alive, firstText, PNG_1X1, toolContext, waitFor, writeStdioServer } from "./helpers.js";

let dir: string;
let serverFile: string;
const managers: McpManager[] = [];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "goat-mcp-stdio-"));
  serverFile = writeStdioServer(dir);
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function manager(
  servers: Parameters<typeof createMcpManager>[0]["servers"],
  connectTimeoutMs = 10_000,
): McpManager {
  const m = createMcpManager({ servers, cwd: dir, connectTimeoutMs });
  managers.push(m);
  return m;
}

const fixture = () => ({ command: process.execPath, args: [serverFile] });

/** Polls `check` every 20 ms on the real clock (node:timers/promises is not faked), up to 10 s. */
async function until(check: () => boolean): Promise<void> {
  for (let waited = 0; !check(); waited += 20) {
    if (waited > 10_000) throw new Error("condition not met in 10 s");
    await sleep(20);
  }
}

function find(m: McpManager, name: string): Tool {
  const found = m.tools().find((t) => t.name === name);
  if (!found)
    throw new Error(
      `no tool ${name} in ${m
        .tools()
        .map((t) => t.name)
        .join(", ")}`,
    );
  return found;
}

describe("stdio MCP servers", () => {
  it("lists the server's tools as mcp__<server>__<tool> with its JSON schema and calls them", async () => {
    const m = manager({ fx: fixture() });
    await m.ready();
    const [status] = m.status();
    expect(status).toMatchObject({
      name: "fx",
      status: "connected",
      serverInfo: { name: "fixture", version: "2.3.4" },
    });
    expect(status.tools?.map((t) => t.name)).toContain("echo");
    const echo = find(m, "mcp__fx__echo");
    expect(echo.jsonSchema).toMatchObject({
      type: "object",
      properties: { msg: { type: "string" } },
      required: ["msg"],
    });
    expect(await runTool(echo, { msg: "hi" }, toolContext())).toEqual({
      content: [{ type: "text", text: "echo: hi" }],
    });
  });

  it("lets the server reject bad arguments as an error result the model can read", async () => {
    const m = manager({ fx: fixture() });
    await m.ready();
    const result = await runTool(find(m, "mcp__fx__echo"), { msg: 42 }, toolContext());
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/msg/);
  });

  it("maps annotations to side effects and sanitises tool names", async () => {
    const m = manager({ "my.server": fixture() });
    await m.ready();
    const byName = new Map(m.tools().map((t) => [t.name, t.sideEffect]));
    expect(byName.get("mcp__my_server__echo")).toBe("none");
    expect(byName.get("mcp__my_server__image")).toBe("read");
    expect(byName.get("mcp__my_server__fails")).toBe("mutating");
    expect(byName.get("mcp__my_server__dotted_name")).toBe("mutating");
    for (const name of byName.keys()) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,128}$/);
  });

  it("maps image, structured and error results", async () => {
    const m = manager({ fx: fixture() });
    await m.ready();
    const image = await runTool(find(m, "mcp__fx__image"), {}, toolContext());
    expect(image.content).toEqual([
      { type: "text", text: "here" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_1X1 } },
    ]);
    const structured = await runTool(find(m, "mcp__fx__structured"), { n: 21 }, toolContext());
    expect(structured).toEqual({ content: [{ type: "text", text: "42" }], details: { doubled: 42 } });
    const failed = await runTool(find(m, "mcp__fx__fails"), {}, toolContext());
    expect(failed).toEqual({ content: [{ type: "text", text: "no such thing" }], isError: true });
  });

  it("cancels a running call on abort, and the server sees the cancellation", async () => {
    const m = manager({ fx: fixture() });
    await m.ready();
    const marker = path.join(dir, "cancelled.txt");
    const controller = new AbortController();
    const started = Date.now();
    const call = runTool(find(m, "mcp__fx__slow"), { marker }, toolContext(controller.signal));
    setTimeout(() => controller.abort(), 200);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await waitFor(() => fs.existsSync(marker))).toBe(true);
  });

  it("marks a server that exits at start as failed with its exit code and stderr, and keeps the others", async () => {
    const m = manager({
      bad: {
        command: process.execPath,
        args: ["-e", "process.stderr.write('boom at start'); process.exit(1)"],
      },
      missing: { command: path.join(dir, "no-such-command") },
      fx: fixture(),
    });
    await m.ready();
    const status = Object.fromEntries(m.status().map((s) => [s.name, s]));
    expect(status.bad.status).toBe("failed");
    expect(status.bad.error).toMatch(/exited with code 1/);
    expect(status.bad.error).toMatch(/boom at start/);
    expect(status.missing.status).toBe("failed");
    expect(status.missing.error).toMatch(/ENOENT/);
    expect(status.fx.status).toBe("connected");
    expect(m.tools().every((t) => t.name.startsWith("mcp__fx__"))).toBe(true);
  });

  it("marks a server that never answers initialize as failed after the timeout and kills it", async () => {
    const pidFile = path.join(dir, "hang.pid");
    const script = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`;
    // The 5 s limit runs on fake timers, moved on once the fixture has connected and the hanging
    // server has started: the test waits for those two facts, not for 5 s of a loaded machine.
    // Real timers are back before anything reacts to the limit, so the kill runs on real time.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    let m: McpManager;
    const started = Date.now();
    try {
      m = manager({ hang: { command: process.execPath, args: ["-e", script] }, fx: fixture() }, 5000);
      const fxConnected = () => m.status().find((s) => s.name === "fx")?.status === "connected";
      await until(() => fxConnected() && fs.existsSync(pidFile));
      expect(m.status().find((s) => s.name === "hang")?.status).toBe("pending");
      vi.advanceTimersByTime(5000);
    } finally {
      vi.useRealTimers();
    }
    await m.ready();
    expect(Date.now() - started).toBeLessThan(12_000);
    const status = Object.fromEntries(m.status().map((s) => [s.name, s]));
    expect(status.hang).toMatchObject({ status: "failed" });
    expect(status.hang.error).toMatch(/timed out after 5000 ms/);
    expect(status.fx.status).toBe("connected");
    // The failed attempt's own close has finished by the time ready() resolves.
    expect(alive(Number(fs.readFileSync(pidFile, "utf8")))).toBe(false);
  });

  it("marks a server that crashes mid-session as failed and drops its tools", async () => {
    const changes: string[] = [];
    const m = createMcpManager({
      servers: { fx: fixture() },
      cwd: dir,
      onStatusChange: (s) => changes.push(s[0]?.status ?? "none"),
    });
    managers.push(m);
    await m.ready();
    const result = await runTool(find(m, "mcp__fx__crash"), {}, toolContext());
    expect(result.isError).toBe(true);
    expect(await waitFor(() => m.status()[0].status === "failed")).toBe(true);
    expect(m.status()[0].error).toMatch(/exited with code 3.*about to crash/s);
    expect(m.tools()).toEqual([]);
    expect(changes).toEqual(["connected", "failed"]);
  });

  it("kills the server and its children on close()", async () => {
    const m = manager({ fx: fixture() });
    await m.ready();
    const result = await runTool(find(m, "mcp__fx__spawn_child"), {}, toolContext());
    const { pid, child } = JSON.parse(firstText(result));
    expect(alive(pid)).toBe(true);
    expect(alive(child)).toBe(true);
    await m.close();
    expect(await waitFor(() => !alive(pid) && !alive(child))).toBe(true);
    expect(m.tools()).toEqual([]);
  });

  it("connects servers in parallel", async () => {
    // Each server waits, before it answers, until all four have started (or gives up after 3 s and
    // exits saying so): connecting one after another, the first would never see the others start.
    // No clock in the assertion, so a loaded machine cannot fail it.
    const startedDir = fs.mkdtempSync(path.join(dir, "started-"));
    const barrier = path.join(dir, "barrier-server.mjs");
    fs.writeFileSync(
      barrier,
      `import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
const [startedDir, count, server] = process.argv.slice(2);
writeFileSync(join(startedDir, String(process.pid)), "");
for (const giveUp = Date.now() + 3000; readdirSync(startedDir).length < Number(count); ) {
  if (Date.now() > giveUp) {
    process.stderr.write("only " + readdirSync(startedDir).length + " of " + count + " servers started");
    process.exit(1);
  }
  await new Promise((resolve) => setTimeout(resolve, 10));
}
await import(pathToFileURL(server).href);
`,
    );
    const names = ["a", "b", "c", "d"];
    const servers = Object.fromEntries(
      names.map((n) => [
        n,
        { command: process.execPath, args: [barrier, startedDir, String(names.length), serverFile] },
      ]),
    );
    const m = manager(servers);
    await m.ready();
    expect(m.status()).toEqual(names.map((name) => expect.objectContaining({ name, status: "connected" })));
  });
});
