/**
 * Claude Code plugins in `query()` (`plugins: [{ type: "local", path }]`): the plugin's command,
 * agent and skill are offered under its name (`/review-kit:review`, `review-kit:checker`,
 * `review-kit:style`), its MCP server starts from `.mcp.json` with `${CLAUDE_PLUGIN_ROOT}` expanded,
 * its hook runs, and `system/init.plugins` lists it in Claude's shape. A broken manifest is one
 * warning naming the file and the plugin's folders still load; a missing folder is a
 * `plugin_errors` entry. Before, `plugins` was refused with an InvalidOptionError.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { QueryOptions } from "../../src/sdk/options.js";
import { query } from "../../src/sdk/query.js";
import { readPlugins } from "../../src/settings/plugins.js";
import { PLUGIN, writeReviewPlugin } from "../support/claude-plugin-fixture.js";
import { reply } from "../support/mock-provider.js";
import { collect, mockOptions, resultOf, tempDir, useMockProvider } from "./helpers.js";

const mock = useMockProvider();
let cwd: string;
let pluginDir: string;
beforeEach(() => {
  cwd = tempDir("goat-plugins-cwd-");
  pluginDir = writeReviewPlugin(path.join(tempDir("goat-plugins-"), "review-kit"));
});

function options(extra: QueryOptions = {}): QueryOptions {
  return mockOptions(mock, "anthropic", {
    cwd,
    env: { PATH: process.env.PATH },
    permissionMode: "default",
    plugins: [{ type: "local", path: pluginDir }],
    allowedTools: [PLUGIN.echoTool],
    tools: ["Read", "Skill", "Task"],
    ...extra,
  });
}

type Msg = Awaited<ReturnType<typeof collect>>[number];
const initOf = (messages: Msg[]) => messages.find((m) => m.type === "system" && m.subtype === "init") as any;
const warnings = (messages: Msg[]) =>
  messages.flatMap((m) => (m.type === "system" && m.subtype === "informational" ? [String(m.content)] : []));

describe("plugins in query()", () => {
  it("lists the plugin and its parts, named after it, in system/init", async () => {
    mock.enqueue(reply.text("ok"));
    const messages = await collect(query({ prompt: "hello", options: options() }));
    expect(resultOf(messages).subtype).toBe("success");
    const init = initOf(messages);
    expect(init.plugins).toEqual([{ name: PLUGIN.name, path: pluginDir, version: PLUGIN.version }]);
    expect(init.plugin_errors).toBeUndefined();
    expect(init.slash_commands).toContain(PLUGIN.command);
    expect(init.agents).toContain(PLUGIN.agent);
    expect(init.skills).toEqual([PLUGIN.skill]);
    expect(init.mcp_servers).toContainEqual({ name: PLUGIN.server, status: "connected" });
    expect(init.tools).toContain(PLUGIN.echoTool);
    expect(warnings(messages)).toEqual([]);
  });

  it("/review-kit:review expands with its arguments; the MCP tool runs with the plugin's hook first", async () => {
    mock.enqueue(reply.toolCalls([{ name: PLUGIN.echoTool, input: { msg: "hi" } }]), reply.text("reviewed"));
    const messages = await collect(query({ prompt: `/${PLUGIN.command} src/a.ts now`, options: options() }));
    expect(resultOf(messages).subtype).toBe("success");
    const first = JSON.stringify(mock.requests[0].body.messages);
    expect(first).toContain(`${PLUGIN.commandMarker}: review src/a.ts now (first: src/a.ts)`);
    expect(JSON.stringify(mock.requests[1].body.messages)).toContain("echo: hi");
    expect(fs.readFileSync(path.join(pluginDir, "hook.log"), "utf8")).toBe("hooked\n");
  });

  it("the plugin's skill is offered by name and description; its agent runs with its prompt", async () => {
    mock.enqueue(
      reply.toolCalls([{ name: "Skill", input: { skill: PLUGIN.skill } }]),
      reply.toolCalls([
        { name: "Task", input: { subagent_type: PLUGIN.agent, description: "check", prompt: "check it" } },
      ]),
      reply.text("checked"),
      reply.text("done"),
    );
    const messages = await collect(query({ prompt: "use the style", options: options() }));
    expect(resultOf(messages).subtype).toBe("success");
    const skillTool = mock.requests[0].body.tools.find((t: { name: string }) => t.name === "Skill");
    expect(skillTool.description).toContain(`- ${PLUGIN.skill}: The house style`);
    expect(JSON.stringify(mock.requests[0].body)).not.toContain(PLUGIN.skillMarker);
    const afterSkill = JSON.stringify(mock.requests[1].body.messages);
    expect(afterSkill).toContain(PLUGIN.skillMarker);
    expect(afterSkill).toContain(path.join(pluginDir, "skills", "style"));
    // The third request is the subagent's own: its system prompt is the agent file's body.
    expect(JSON.stringify(mock.requests[2].body.system)).toContain(PLUGIN.agentMarker);
  });

  it("a broken manifest is one warning naming it, and the plugin's folders still load; a missing folder is an error entry", async () => {
    const manifest = path.join(pluginDir, ".claude-plugin", "plugin.json");
    fs.writeFileSync(manifest, "{ not json");
    const missing = path.join(cwd, "no-such-plugin");
    mock.enqueue(reply.text("ok"));
    const messages = await collect(
      query({
        prompt: "hello",
        options: options({
          plugins: [
            { type: "local", path: pluginDir },
            { type: "local", path: "no-such-plugin" },
          ],
        }),
      }),
    );
    expect(resultOf(messages).subtype).toBe("success");
    const init = initOf(messages);
    // Named after its folder, which is the manifest's name here too; no version without a manifest.
    expect(init.plugins).toEqual([{ name: "review-kit", path: pluginDir }]);
    expect(init.slash_commands).toContain(PLUGIN.command);
    expect(warnings(messages).filter((w) => w.includes(manifest))).toEqual([
      expect.stringMatching(/is not valid JSON \(.*\(line 1, column 3\)\)/),
    ]);
    expect(init.plugin_errors).toEqual([
      expect.objectContaining({ type: "manifest-validation-error", path: manifest }),
      expect.objectContaining({ plugin: "inline[1]", type: "path-not-found", path: missing }),
    ]);
  });

  it("skipMcpDiscovery leaves the plugin's servers unstarted; its other parts load", async () => {
    mock.enqueue(reply.text("ok"));
    const messages = await collect(
      query({
        prompt: "hello",
        options: options({ plugins: [{ type: "local", path: pluginDir, skipMcpDiscovery: true }] }),
      }),
    );
    const init = initOf(messages);
    expect(init.mcp_servers).toEqual([]);
    expect(init.skills).toEqual([PLUGIN.skill]);
  });
});

describe("a plugin manifest's own paths", () => {
  it("add a command file and a folder to the defaults; a path outside the plugin is one warning, not read", () => {
    const root = path.join(tempDir("goat-plugin-paths-"), "kit");
    const write = (file: string, text: string) => {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
    };
    write(
      path.join(root, ".claude-plugin", "plugin.json"),
      JSON.stringify({ name: "kit", commands: ["./extra/special.md", "./more", "../outside"] }),
    );
    write(path.join(root, "commands", "plain.md"), "Plain\n");
    write(path.join(root, "extra", "special.md"), "Special\n");
    write(path.join(root, "extra", "not-listed.md"), "Not listed\n");
    write(path.join(root, "more", "other.md"), "Other\n");
    write(path.join(root, "..", "outside", "sneaky.md"), "Sneaky\n");
    const warnings: string[] = [];
    const { plugins } = readPlugins([{ type: "local", path: root }], root, (m) => warnings.push(m));
    expect(Object.keys(plugins[0].commands).sort()).toEqual(["kit:other", "kit:plain", "kit:special"]);
    expect(warnings).toEqual([expect.stringContaining(`${path.resolve(root, "../outside")} is outside`)]);
  });

  it("hook and server files the manifest names outside the plugin are one warning each, not read", () => {
    const root = path.join(tempDir("goat-plugin-hooks-"), "kit");
    const write = (file: string, text: string) => {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
    };
    const hooks = { hooks: { PreToolUse: [{ hooks: [{ type: "command", command: "echo outside" }] }] } };
    write(
      path.join(root, ".claude-plugin", "plugin.json"),
      JSON.stringify({ name: "kit", hooks: "../elsewhere/hooks.json", mcpServers: "../elsewhere/mcp.json" }),
    );
    write(path.join(root, "..", "elsewhere", "hooks.json"), JSON.stringify(hooks));
    write(
      path.join(root, "..", "elsewhere", "mcp.json"),
      JSON.stringify({ mcpServers: { far: { command: "echo" } } }),
    );
    const warnings: string[] = [];
    const { plugins } = readPlugins([{ type: "local", path: root }], root, (m) => warnings.push(m));
    expect(plugins[0].hooks).toEqual({});
    expect(plugins[0].mcpServers).toEqual({});
    expect(warnings).toEqual([
      expect.stringContaining(`${path.resolve(root, "../elsewhere/hooks.json")} is outside`),
      expect.stringContaining(`${path.resolve(root, "../elsewhere/mcp.json")} is outside`),
    ]);
  });
});
