import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { QueryOptions } from "../../src/sdk/options.js";
import { query } from "../../src/sdk/query.js";
import type { SDKMessage } from "../../src/sdk/sdk-messages.js";
import { SettingsError } from "../../src/settings/files.js";
import { writeStdioServer } from "../mcp/helpers.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { collect, mockOptions, resultOf, tempDir, toolResultsSent } from "./helpers.js";

let mock: MockProvider;
let home: string;
let cwd: string;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.requests.length = 0;
  home = tempDir("goat-settings-home-");
  cwd = tempDir("goat-settings-cwd-");
  fs.mkdirSync(path.join(cwd, ".goat"));
});

function write(file: string, json: unknown) {
  fs.writeFileSync(file, typeof json === "string" ? json : JSON.stringify(json));
}
const userFile = () => path.join(home, "settings.json");
const projectFile = () => path.join(cwd, ".goat", "settings.json");
const localFile = () => path.join(cwd, ".goat", "settings.local.json");

/** Options for the mock without a model or permission mode of their own, so settings can supply them. */
function options(extra: QueryOptions = {}): QueryOptions {
  const base = mockOptions(mock, "anthropic", {
    cwd,
    env: { PATH: process.env.PATH, GOAT_HOME: home, CLAUDE_CONFIG_DIR: path.join(home, "claude") },
  });
  delete base.model;
  delete base.permissionMode;
  return { ...base, ...extra };
}

describe("settingSources in query()", () => {
  it("reads no settings file by default", async () => {
    write(userFile(), { model: "anthropic/claude-from-user" });
    write(projectFile(), { model: "anthropic/claude-from-project" });
    mock.enqueue(reply.text("ok"));
    await collect(query({ prompt: "x", options: options() }));
    expect(mock.requests[0].body.model).toBe("claude-sonnet-4-5");
  });

  it("user, then project, then local: the later file's model wins; the model option wins over all", async () => {
    write(userFile(), { model: "anthropic/claude-from-user" });
    write(projectFile(), { model: "anthropic/claude-from-project" });
    write(localFile(), { model: "anthropic/claude-from-local" });
    mock.enqueue(reply.text("ok"), reply.text("ok"), reply.text("ok"));
    const sources = ["user", "project", "local"] as const;
    await collect(query({ prompt: "x", options: options({ settingSources: [...sources] }) }));
    await collect(query({ prompt: "x", options: options({ settingSources: ["user", "project"] }) }));
    await collect(
      query({
        prompt: "x",
        options: options({ settingSources: [...sources], model: "anthropic/claude-explicit" }),
      }),
    );
    expect(mock.requests.map((r) => r.body.model)).toEqual([
      "claude-from-local",
      "claude-from-project",
      "claude-explicit",
    ]);
  });

  it("the files' env fills in what the caller did not set: keys, base URL and GOAT_MODEL reach the provider", async () => {
    write(userFile(), {
      model: "anthropic/claude-from-settings-model",
      env: {
        ANTHROPIC_BASE_URL: mock.anthropicBaseURL,
        ANTHROPIC_API_KEY: "key-from-settings",
        GOAT_MODEL: "anthropic/claude-from-settings-env",
      },
    });
    mock.enqueue(reply.text("ok"), reply.text("ok"));
    const bare = (env: Record<string, string | undefined>): QueryOptions => ({
      cwd,
      env: { PATH: process.env.PATH, GOAT_HOME: home, CLAUDE_CONFIG_DIR: path.join(home, "claude"), ...env },
      persistSession: false,
      tools: [],
      settingSources: ["user"],
    });
    await collect(query({ prompt: "x", options: bare({}) }));
    await collect(query({ prompt: "x", options: bare({ ANTHROPIC_API_KEY: "key-from-caller" }) }));
    // GOAT_MODEL (here from the settings env) wins over the settings' model, as in the CLI.
    expect(mock.requests.map((r) => r.body.model)).toEqual([
      "claude-from-settings-env",
      "claude-from-settings-env",
    ]);
    expect(mock.requests.map((r) => r.headers["x-api-key"])).toEqual([
      "key-from-settings",
      "key-from-caller",
    ]);
  });

  it("applies the files' permissions, default mode and hooks beside the options' own", async () => {
    write(userFile(), { permissions: { defaultMode: "acceptEdits", deny: ["Bash(rm:*)"] } });
    write(projectFile(), {
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              {
                type: "command",
                command: "grep -q blockme && { echo blocked-by-settings >&2; exit 2; } || exit 0",
              },
            ],
          },
        ],
      },
    });
    mock.enqueue(
      reply.toolCalls([
        { name: "Bash", input: { command: "echo allowed-by-option" }, id: "b1" },
        { name: "Bash", input: { command: "rm -rf nothing-here" }, id: "b2" },
        { name: "Bash", input: { command: "echo blockme" }, id: "b3" },
      ]),
      reply.text("done"),
    );
    const messages = await collect(
      query({
        prompt: "x",
        options: options({
          tools: ["Bash"],
          allowedTools: ["Bash(echo:*)"],
          settingSources: ["user", "project"],
        }),
      }),
    );
    const init = messages[0] as any;
    expect(init.permissionMode).toBe("acceptEdits");
    const sent = toolResultsSent(mock.requests[1].body);
    expect(sent[0].content).toContain("allowed-by-option");
    expect(sent[1].isError).toBe(true);
    expect(sent[2].content).toContain("blocked-by-settings");
    expect(resultOf(messages).permission_denials.map((d) => d.tool_use_id)).toContain("b2");
  });

  it("the settings option, as an object or a path relative to cwd, is a layer above the files", async () => {
    write(projectFile(), { model: "anthropic/claude-from-project" });
    write(path.join(cwd, "extra.json"), { model: "anthropic/claude-from-path" });
    mock.enqueue(reply.text("ok"), reply.text("ok"));
    await collect(
      query({
        prompt: "x",
        options: options({ settingSources: ["project"], settings: { model: "anthropic/claude-inline" } }),
      }),
    );
    await collect(
      query({ prompt: "x", options: options({ settingSources: ["project"], settings: "extra.json" }) }),
    );
    expect(mock.requests.map((r) => r.body.model)).toEqual(["claude-inline", "claude-from-path"]);
  });

  it("a file that cannot be used stops query() with an error naming it", () => {
    write(projectFile(), "{ not json");
    expect(() => query({ prompt: "x", options: options({ settingSources: ["project"] }) })).toThrow(
      SettingsError,
    );
    expect(() => query({ prompt: "x", options: options({ settingSources: ["project"] }) })).toThrow(
      `invalid JSON in settings file ${projectFile()}`,
    );
    expect(() => query({ prompt: "x", options: options({ settings: "missing.json" }) })).toThrow(
      `settings file ${path.join(cwd, "missing.json")} does not exist`,
    );
    expect(() =>
      query({ prompt: "x", options: options({ settings: { permissions: { allow: "Bash" } } }) }),
    ).toThrow(`"permissions.allow" in the "settings" option must be an array of strings`);
    expect(() =>
      query({ prompt: "x", options: options({ settings: { permissions: { defaultMode: "yolo" } } }) }),
    ).toThrow(/permissions.defaultMode must be one of/);
    expect(mock.requests).toHaveLength(0);
  });
});

describe("MCP servers in settings files reach query()", () => {
  const bogus = { command: path.join(os.tmpdir(), "goat-no-such-mcp-server") };
  const real = () => ({ command: process.execPath, args: [writeStdioServer(tempDir("goat-mcp-server-"))] });
  const initServers = (messages: SDKMessage[]) => {
    const init = messages.find((m) => m.type === "system" && m.subtype === "init");
    const servers = (init as { mcp_servers: Array<{ name: string; status: string }> }).mcp_servers;
    return Object.fromEntries(servers.map((s) => [s.name, s.status]));
  };

  it("in the CLI's order (user, .mcp.json, project, local; options win by name), .mcp.json only with project", async () => {
    write(userFile(), { mcpServers: { alpha: real(), shared: bogus } });
    write(path.join(cwd, ".mcp.json"), { mcpServers: { shared: bogus, beta: real(), gamma: real() } });
    write(projectFile(), { mcpServers: { shared: real() } });
    write(localFile(), { mcpServers: { delta: real() } });
    mock.enqueue(reply.text("ok"), reply.text("ok"));
    const all = await collect(
      query({
        prompt: "x",
        options: options({
          settingSources: ["user", "project", "local"],
          mcpServers: { gamma: bogus },
          // Wait for every server however loaded the machine is: the statuses are the assertion.
          mcpStartupTimeoutMs: 60_000,
        }),
      }),
    );
    // The bogus command cannot start: a "failed" server is one whose losing config was used.
    expect(initServers(all)).toEqual({
      alpha: "connected",
      shared: "connected",
      beta: "connected",
      gamma: "failed",
      delta: "connected",
    });
    const offered = (mock.requests[0].body.tools as Array<{ name: string }>).map((t) => t.name);
    expect(offered).toEqual(expect.arrayContaining(["mcp__alpha__echo", "mcp__shared__echo"]));

    const userOnly = await collect(
      query({ prompt: "x", options: options({ settingSources: ["user"], mcpStartupTimeoutMs: 60_000 }) }),
    );
    expect(initServers(userOnly)).toEqual({ alpha: "connected", shared: "failed" });
  });

  it("a .mcp.json that is not JSON is one warning naming the file and the line; the other servers still start", async () => {
    write(path.join(cwd, ".mcp.json"), '{\n  "mcpServers": {\n    "beta": { "command": "x" },\n  }\n}\n');
    write(userFile(), { mcpServers: { alpha: real() } });
    mock.enqueue(reply.text("ok"));
    const messages = await collect(
      query({
        prompt: "x",
        options: options({ settingSources: ["user", "project"], mcpStartupTimeoutMs: 60_000 }),
      }),
    );
    const warnings = messages.filter((m) => (m as any).level === "warning").map((m) => (m as any).content);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`invalid JSON in MCP config file ${path.join(cwd, ".mcp.json")}`);
    expect(warnings[0]).toContain("(line 4, column 3)");
    expect(initServers(messages)).toEqual({ alpha: "connected" });
    expect(mock.requests).toHaveLength(1);
  });

  it("a server that cannot be used stops query() with an error naming its file", () => {
    write(projectFile(), { mcpServers: { broken: { type: "http" } } });
    expect(() => query({ prompt: "x", options: options({ settingSources: ["project"] }) })).toThrow(
      `MCP server "broken" in settings file ${projectFile()}`,
    );
    write(projectFile(), { mcpServers: { host: { type: "sdk", name: "host" } } });
    expect(() => query({ prompt: "x", options: options({ settingSources: ["project"] }) })).toThrow(
      /"host" has type "sdk".*pass the server itself in mcpServers/,
    );
    expect(mock.requests).toHaveLength(0);
  });
});
