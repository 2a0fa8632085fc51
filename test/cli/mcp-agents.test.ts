import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { writeStdioServer } from "../mcp/helpers.js";
import { reply } from "../support/mock-provider.js";
import { jsonLines, runCli, trustWorkFolder, useCliFixture } from "./helpers.js";

const fx = useCliFixture("goat-cli");
let serverScript: string;

beforeEach(() => {
  serverScript = writeStdioServer(fx.home.path);
  // These tests are about what a folder's configuration does once it applies (workspace-trust.test.ts
  // covers an untrusted one).
  trustWorkFolder(fx);
});

const run = (args: string[]) => runCli(args, { env: fx.env, cwd: fx.work.path });
const stdioServer = () => ({ command: process.execPath, args: [serverScript] });
const toolResultsOf = (body: any) =>
  body.messages.flatMap((m: any) =>
    Array.isArray(m.content) ? m.content.filter((b: any) => b.type === "tool_result") : [],
  );
const writeProjectSettings = (json: unknown) => {
  mkdirSync(join(fx.work.path, ".goat"), { recursive: true });
  writeFileSync(join(fx.work.path, ".goat", "settings.json"), JSON.stringify(json));
};

describe("MCP servers from --mcp-config, settings and .mcp.json", () => {
  it("a stdio server given by --mcp-config is connected in system/init and its tool runs for the model", async () => {
    const configFile = join(fx.work.path, "servers.json");
    writeFileSync(configFile, JSON.stringify({ mcpServers: { fx: stdioServer() } }));
    fx.mock.enqueue(
      reply.toolCalls([{ name: "mcp__fx__echo", input: { msg: "through the cli" } }]),
      reply.text("done"),
    );
    const r = await run([
      "-p",
      "echo it",
      "--output-format",
      "stream-json",
      "--mcp-config",
      configFile,
      "--allowedTools",
      "mcp__fx__*",
    ]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = jsonLines(r.stdout);
    expect(lines[0]).toMatchObject({ type: "system", subtype: "init" });
    expect(lines[0].mcp_servers).toEqual([{ name: "fx", status: "connected" }]);
    expect(lines[0].tools).toContain("mcp__fx__echo");
    expect(fx.mock.requests[0].body.tools.map((t: any) => t.name)).toContain("mcp__fx__echo");
    const [result] = toolResultsOf(fx.mock.requests[1].body);
    expect(JSON.stringify(result.content)).toContain("echo: through the cli");
    expect(result.is_error).toBeFalsy();
  });

  it("MCP_TIMEOUT sets how long the first model call waits for the servers to connect, as in Claude Code", async () => {
    const configFile = join(fx.work.path, "servers.json");
    writeFileSync(configFile, JSON.stringify({ mcpServers: { fx: stdioServer() } }));
    fx.mock.enqueue(reply.text("done"));
    // No wait at all: the server cannot have started Node yet when system/init is written.
    const args = ["-p", "hi", "--output-format", "stream-json", "--verbose", "--mcp-config", configFile];
    const r = await runCli(args, { env: { ...fx.env, MCP_TIMEOUT: "0" }, cwd: fx.work.path });
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout)[0].mcp_servers).toEqual([{ name: "fx", status: "pending" }]);
  });

  it("merges user settings, project .mcp.json and inline --mcp-config, the flag winning a shared name", async () => {
    writeFileSync(
      join(fx.home.path, "settings.json"),
      JSON.stringify({ mcpServers: { user: stdioServer() } }),
    );
    writeFileSync(
      join(fx.work.path, ".mcp.json"),
      JSON.stringify({
        mcpServers: { project: stdioServer(), shared: { command: join(fx.work.path, "no-such-server") } },
      }),
    );
    const inline = JSON.stringify({ mcpServers: { shared: stdioServer() } });
    fx.mock.enqueue(reply.text("a"), reply.text("b"));
    const all = await run(["-p", "hi", "--output-format", "stream-json", "--mcp-config", inline]);
    expect(all.code).toBe(0);
    const servers = jsonLines(all.stdout)[0].mcp_servers;
    expect(new Map(servers.map((s: any) => [s.name, s.status]))).toEqual(
      new Map([
        ["user", "connected"],
        ["project", "connected"],
        ["shared", "connected"],
      ]),
    );

    const strict = await run([
      "-p",
      "hi",
      "--output-format",
      "stream-json",
      "--strict-mcp-config",
      "--mcp-config",
      inline,
    ]);
    expect(strict.code).toBe(0);
    expect(jsonLines(strict.stdout)[0].mcp_servers).toEqual([{ name: "shared", status: "connected" }]);
  });

  it("a broken --mcp-config file exits 1 naming the file, before any request", async () => {
    const configFile = join(fx.work.path, "broken-mcp.json");
    writeFileSync(configFile, "{ not json");
    const r = await run(["-p", "hi", "--mcp-config", configFile]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(configFile);
    expect(r.stderr).toMatch(/invalid JSON/);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);

    const missing = await run(["-p", "hi", "--mcp-config", join(fx.work.path, "absent.json")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("absent.json");
    expect(fx.mock.requests).toHaveLength(0);
  });

  it("an invalid server in the project .mcp.json exits 1 naming the file and the server", async () => {
    writeFileSync(join(fx.work.path, ".mcp.json"), JSON.stringify({ mcpServers: { bad: { type: "http" } } }));
    const r = await run(["-p", "hi"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(join(fx.work.path, ".mcp.json"));
    expect(r.stderr).toContain('"bad"');
    expect(fx.mock.requests).toHaveLength(0);
  });

  it("mcpServers in a settings file that is not an object exits 1 naming the settings file", async () => {
    writeProjectSettings({ mcpServers: ["fx"] });
    const r = await run(["-p", "hi"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(join(fx.work.path, ".goat", "settings.json"));
    expect(r.stderr).toMatch(/"mcpServers" .* must be an object/);
    expect(fx.mock.requests).toHaveLength(0);
  });
});

describe("settings permissions and hooks in print mode", () => {
  it("a permissions.deny rule sends the Bash call back denied, even in bypassPermissions", async () => {
    writeProjectSettings({ permissions: { deny: ["Bash(touch:*)"] } });
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: "touch made.txt" } }]),
      reply.text("ok"),
    );
    const r = await run(["-p", "make a file", "--permission-mode", "bypassPermissions"]);
    expect(r.code).toBe(0);
    const [result] = toolResultsOf(fx.mock.requests[1].body);
    expect(result.is_error).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/denied by the rule Bash\(touch:\*\)/);
    expect(existsSync(join(fx.work.path, "made.txt"))).toBe(false);
  });

  it("a settings command hook that exits 2 on PreToolUse blocks the call with its stderr", async () => {
    writeProjectSettings({
      hooks: {
        PreToolUse: [
          { matcher: "Bash", hooks: [{ type: "command", command: "echo 'no touching here' >&2; exit 2" }] },
        ],
      },
    });
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: "touch made.txt" } }]),
      reply.text("ok"),
    );
    const r = await run(["-p", "make a file", "--permission-mode", "bypassPermissions"]);
    expect(r.code).toBe(0);
    const [result] = toolResultsOf(fx.mock.requests[1].body);
    expect(result.is_error).toBe(true);
    expect(JSON.stringify(result.content)).toContain("no touching here");
    expect(existsSync(join(fx.work.path, "made.txt"))).toBe(false);
  });
});

describe("--agents", () => {
  it("defines a subagent the Task tool runs with its own system prompt", async () => {
    const agents = JSON.stringify({
      reviewer: {
        description: "Reviews code",
        prompt: "You are the strict reviewer subagent.",
        tools: ["Read"],
      },
    });
    fx.mock.enqueue(
      reply.toolCalls([
        {
          name: "Task",
          input: { description: "review", prompt: "review the code", subagent_type: "reviewer" },
        },
      ]),
      reply.text("looks fine"),
      reply.text("the reviewer says it looks fine"),
    );
    const r = await run(["-p", "get a review", "--agents", agents, "--permission-mode", "bypassPermissions"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("the reviewer says it looks fine\n");
    const taskTool = fx.mock.requests[0].body.tools.find((t: any) => t.name === "Task");
    expect(taskTool.description).toContain("reviewer: Reviews code");
    const child = fx.mock.requests[1].body;
    expect(JSON.stringify(child.system)).toContain("You are the strict reviewer subagent.");
    expect(child.tools.map((t: any) => t.name)).toEqual(["Read"]);
    expect(JSON.stringify(toolResultsOf(fx.mock.requests[2].body)[0].content)).toContain("looks fine");
  });

  it("a malformed --agents value is a one-line usage error", async () => {
    const r = await run(["-p", "hi", "--agents", JSON.stringify({ reviewer: { prompt: "p" } })]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'goat: --agents: agent "reviewer" needs a "description" string (when the model should use it)\n',
    );
    expect(fx.mock.requests).toHaveLength(0);
  });
});
