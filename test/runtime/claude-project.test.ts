/**
 * A whole Claude Code project through `query()` with `settingSources: ["user", "project", "local"]`
 * and the `review-kit` plugin (test/support/claude-project-fixture.ts): every piece is offered
 * (system/init lists the project's and the plugin's commands, agents, skills, the plugin and its
 * server), invoked (the namespaced command with its arguments and `!` line, both skills, the helper
 * file, the plugin's MCP tool, the project's agent) and obeyed (the deny rule refuses `rm`, the
 * plugin's hook runs).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { query } from "../../src/sdk/query.js";
import { PLUGIN, PROJECT, writeClaudeProject } from "../support/claude-project-fixture.js";
import { reply } from "../support/mock-provider.js";
import { collect, mockOptions, resultOf, tempDir, useMockProvider } from "./helpers.js";

const mock = useMockProvider();

function toolResults(messages: unknown[]): string[] {
  return messages.flatMap((m: any) =>
    m.type === "user" && Array.isArray(m.message.content)
      ? m.message.content.flatMap((b: any) => (b.type === "tool_result" ? [JSON.stringify(b.content)] : []))
      : [],
  );
}

describe("a Claude Code project in query()", () => {
  it("offers, runs and obeys each piece: settings, agent, command, skill, plugin", async () => {
    const cwd = tempDir("goat-claude-project-");
    const home = tempDir("goat-claude-project-home-");
    const { helper, pluginDir } = writeClaudeProject(
      cwd,
      path.join(tempDir("goat-claude-plugins-"), "review-kit"),
    );
    mock.enqueue(
      reply.toolCalls([
        { name: "Bash", input: { command: "rm victim.txt" } },
        { name: "Skill", input: { skill: PROJECT.skill } },
        { name: "Skill", input: { skill: PLUGIN.skill } },
        { name: PLUGIN.echoTool, input: { msg: "plugged" } },
      ]),
      reply.toolCalls([
        { name: "Read", input: { file_path: helper } },
        { name: "Task", input: { subagent_type: PROJECT.agent, description: "review", prompt: "look" } },
      ]),
      reply.text("looks fine"), // the reviewer subagent
      reply.text("all done"),
    );
    const messages = await collect(
      query({
        prompt: `/${PROJECT.namespacedCommand} 42 urgent`,
        options: mockOptions(mock, "anthropic", {
          cwd,
          env: { PATH: process.env.PATH, GOAT_HOME: home, CLAUDE_CONFIG_DIR: path.join(home, "claude") },
          settingSources: ["user", "project", "local"],
          plugins: [{ type: "local", path: pluginDir }],
          permissionMode: "acceptEdits",
          allowedTools: [PLUGIN.echoTool],
          tools: ["Bash", "Read", "Skill", "Task"],
        }),
      }),
    );
    expect(resultOf(messages).subtype).toBe("success");
    const init = messages.find((m) => m.type === "system" && m.subtype === "init") as any;
    expect(init.slash_commands).toEqual(expect.arrayContaining([PROJECT.command, PLUGIN.command]));
    expect(init.agents).toEqual(expect.arrayContaining([PROJECT.agent, PLUGIN.agent]));
    expect(init.skills).toEqual([PROJECT.skill, PLUGIN.skill]);
    expect(init.plugins).toEqual([{ name: PLUGIN.name, path: pluginDir, version: PLUGIN.version }]);
    expect(init.mcp_servers).toContainEqual({ name: PLUGIN.server, status: "connected" });

    // The command: arguments in place, its `!` line run (its allowed-tools approve echo).
    const prompt = JSON.stringify(mock.requests[0].body.messages[0]);
    expect(prompt).toContain(`${PROJECT.commandMarker} issue 42, all: 42 urgent`);
    expect(prompt).toContain("Probe: probe-42");
    // Skills by name and description only, until used.
    expect(JSON.stringify(mock.requests[0].body)).not.toContain(PROJECT.skillMarker);

    const [rm, pdf, style, echo, read] = toolResults(messages);
    expect(rm).toMatch(/denied by the rule Bash\(rm:\*\)/);
    expect(fs.readFileSync(path.join(cwd, "victim.txt"), "utf8")).toBe("keep me");
    expect(pdf).toContain(PROJECT.skillMarker);
    expect(style).toContain(PLUGIN.skillMarker);
    expect(echo).toContain("echo: plugged");
    expect(fs.readFileSync(path.join(pluginDir, "hook.log"), "utf8")).toBe("hooked\n");
    expect(read).toContain(PROJECT.helperText);
    // The third request is the reviewer's: the agent file's body is its system prompt.
    expect(JSON.stringify(mock.requests[2].body.system)).toContain(PROJECT.agentMarker);
  });
});
