/**
 * A Claude Code project under the real Claude Agent SDK driving `goat`: its `.claude/settings.json`
 * deny rules hold with `settingSources` (its allow rules wait for the folder's trust, said on
 * stderr); the host's `sessionStore` receives every transcript entry Goat writes (the SDK passes
 * `--session-mirror` and reads `transcript_mirror` frames); `continue: true` with nothing to continue
 * starts a new session, as with Claude Code. The whole fixture project (test/support/claude-project-fixture.ts)
 * with the `review-kit` plugin (the SDK's `plugins` option, sent as `--plugin-dir`): each piece is
 * offered (system/init, supportedCommands(), supportedAgents(), reloadSkills(), reloadPlugins()),
 * invoked and obeyed. The same plugin sent in the initialize request (`pluginDelivery: "initialize"`)
 * loads as `--plugin-dir` does, and `plugins_applied` confirms it (it was ignored with a warning).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { trustWorkFolder, useCliFixture } from "../cli/helpers.js";
import { writeReviewPlugin } from "../support/claude-plugin-fixture.js";
import { PLUGIN, PROJECT, writeClaudeProject } from "../support/claude-project-fixture.js";
import { reply } from "../support/mock-provider.js";
import { type ClaudeSdk, loadClaudeSdk } from "./claude-sdk.js";
import { collect, inits, results, sdkOptions, toolResults } from "./helpers.js";

const fx = useCliFixture("goat-sdk-edges");
let sdk: ClaudeSdk;
beforeAll(async () => {
  sdk = await loadClaudeSdk();
}, 300_000);

/** A host's store, kept in memory: what the SDK appended, per key. */
function memoryStore() {
  const appended = new Map<string, unknown[]>();
  const keyOf = (key: { projectKey: string; sessionId: string; subpath?: string }) =>
    [key.projectKey, key.sessionId, key.subpath].filter((p) => p !== undefined).join("/");
  return {
    appended,
    store: {
      async append(key: { projectKey: string; sessionId: string; subpath?: string }, entries: unknown[]) {
        appended.set(keyOf(key), [...(appended.get(keyOf(key)) ?? []), ...entries]);
      },
      async load() {
        return null;
      },
      async listSessions() {
        return [];
      },
    },
  };
}

/** Goat's own transcript of a session in the fixture's GOAT_HOME, entry by entry. */
function goatTranscript(sessionId: string): unknown[] {
  const key = fx.work.path.replace(/[^a-zA-Z0-9]/g, "-");
  return readFileSync(join(fx.home.path, "projects", key, `${sessionId}.jsonl`), "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l));
}

describe("a Claude Code project's settings under the SDK", () => {
  it("settingSources user, project, local: the project's deny rule holds, its allow rule waits for trust, one stderr line says so", async () => {
    mkdirSync(join(fx.work.path, ".claude"));
    writeFileSync(
      join(fx.work.path, ".claude", "settings.json"),
      JSON.stringify({ permissions: { deny: ["Bash(rm:*)"], allow: ["Bash(touch:*)"] } }),
    );
    writeFileSync(join(fx.work.path, "victim.txt"), "keep me");
    fx.mock.enqueue(
      reply.toolCalls([
        { name: "Bash", id: "b1", input: { command: "rm victim.txt" } },
        { name: "Bash", id: "b2", input: { command: "touch made.txt" } },
      ]),
      reply.text("done"),
    );
    const stderr: string[] = [];
    const run = await collect(
      sdk.query({
        prompt: "go",
        options: sdkOptions(fx, {
          settingSources: ["user", "project", "local"],
          canUseTool: async () => ({ behavior: "deny", message: "the host says no" }),
          stderr: (text: string) => stderr.push(text),
        }),
      }),
    );
    expect(run.error).toBeUndefined();
    const [rm, touch] = toolResults(run);
    expect(JSON.stringify(rm.content)).toMatch(/denied by the rule Bash\(rm:\*\)/);
    expect(JSON.stringify(touch.content)).toContain("the host says no"); // asked: the allow rule did not apply
    expect(existsSync(join(fx.work.path, "victim.txt"))).toBe(true);
    expect(existsSync(join(fx.work.path, "made.txt"))).toBe(false);
    expect(stderr.join("")).toContain("allow rule Bash(touch:*) (.claude/settings.json)");
  });
});

describe("a whole Claude Code project under the SDK", () => {
  it("settings, agent, namespaced command, skill and plugin are offered, invoked and obeyed", async () => {
    const { helper, pluginDir } = writeClaudeProject(
      fx.work.path,
      join(fx.home.path, "plugins", "review-kit"),
    );
    trustWorkFolder(fx);
    fx.mock.enqueue(
      reply.toolCalls([
        { name: "Bash", id: "rm", input: { command: "rm victim.txt" } },
        { name: "Skill", id: "s1", input: { skill: PROJECT.skill } },
        { name: "Skill", id: "s2", input: { skill: PLUGIN.skill } },
        { name: PLUGIN.echoTool, id: "e1", input: { msg: "plugged" } },
      ]),
      reply.toolCalls([
        { name: "Read", id: "r1", input: { file_path: helper } },
        {
          name: "Task",
          id: "t1",
          input: { subagent_type: PROJECT.agent, description: "review", prompt: "look" },
        },
      ]),
      reply.text("looks fine"),
      reply.text("all done"),
    );
    const q = sdk.query({
      prompt: `/${PROJECT.namespacedCommand} 42 urgent`,
      options: sdkOptions(fx, {
        settingSources: ["user", "project", "local"],
        plugins: [{ type: "local", path: pluginDir }],
        canUseTool: async (_name: string, input: Record<string, unknown>) => ({
          behavior: "allow",
          updatedInput: input,
        }),
      }),
    });
    const lists = q.supportedCommands().then(async (commands) => ({
      commands,
      agents: await q.supportedAgents(),
      skills: await q.reloadSkills(),
      plugins: await q.reloadPlugins(),
    }));
    const run = await collect(q);
    expect(run.error).toBeUndefined();
    const [result] = results(run) as any[];
    expect(result.result).toBe("all done");
    const [init] = inits(run) as any[];
    expect(init.skills).toEqual([PROJECT.skill, PLUGIN.skill]);
    expect(init.plugins).toEqual([{ name: PLUGIN.name, path: pluginDir, version: PLUGIN.version }]);
    expect(init.mcp_servers).toContainEqual(
      expect.objectContaining({ name: PLUGIN.server, status: "connected" }),
    );
    const { commands, agents, skills, plugins } = await lists;
    expect(commands.map((c: any) => c.name)).toEqual(
      expect.arrayContaining([PROJECT.command, PLUGIN.command]),
    );
    expect(commands.find((c: any) => c.name === PROJECT.command).argumentHint).toBe("<issue> [note]");
    expect(agents.map((a: any) => a.name)).toEqual(expect.arrayContaining([PROJECT.agent, PLUGIN.agent]));
    expect(skills.skills.map((s: any) => s.name)).toEqual([PROJECT.skill, PLUGIN.skill]);
    expect(plugins.plugins).toEqual([{ name: PLUGIN.name, path: pluginDir, version: PLUGIN.version }]);

    const prompt = JSON.stringify(fx.mock.requests[0].body.messages[0]);
    expect(prompt).toContain(`${PROJECT.commandMarker} issue 42, all: 42 urgent`);
    expect(prompt).toContain("Probe: probe-42");
    expect(JSON.stringify(fx.mock.requests[0].body)).not.toContain(PROJECT.skillMarker);
    const [rm, pdf, style, echo, read] = toolResults(run).map((r) => JSON.stringify(r.content));
    expect(rm).toMatch(/denied by the rule Bash\(rm:\*\)/);
    expect(readFileSync(join(fx.work.path, "victim.txt"), "utf8")).toBe("keep me");
    expect(pdf).toContain(PROJECT.skillMarker);
    expect(style).toContain(PLUGIN.skillMarker);
    expect(echo).toContain("echo: plugged");
    expect(readFileSync(join(pluginDir, "hook.log"), "utf8")).toBe("hooked\n");
    expect(read).toContain(PROJECT.helperText);
    expect(JSON.stringify(fx.mock.requests[2].body.system)).toContain(PROJECT.agentMarker);
  });
});

describe("plugins sent in the initialize request", () => {
  it('pluginDelivery "initialize": the plugin loads as with --plugin-dir, and plugins_applied says so', async () => {
    const pluginDir = writeReviewPlugin(join(fx.home.path, "plugins", "review-kit"));
    fx.mock.enqueue(
      reply.toolCalls([
        { name: "Skill", id: "s1", input: { skill: PLUGIN.skill } },
        { name: PLUGIN.echoTool, id: "e1", input: { msg: "sent-by-initialize" } },
      ]),
      reply.text("plugged in"),
    );
    const stderr: string[] = [];
    const q = sdk.query({
      prompt: `/${PLUGIN.command} a.ts`,
      options: sdkOptions(fx, {
        plugins: [{ type: "local", path: pluginDir }],
        pluginDelivery: "initialize",
        stderr: (text: string) => stderr.push(text),
        canUseTool: async (_name: string, input: Record<string, unknown>) => ({
          behavior: "allow",
          updatedInput: input,
        }),
      }),
    });
    const offered = q.initializationResult().then(async (initialization: any) => ({
      initialization,
      commands: await q.supportedCommands(),
      agents: await q.supportedAgents(),
    }));
    const run = await collect(q);
    expect(run.error).toBeUndefined();
    expect(stderr.join("")).not.toContain("plugins");
    const [init] = inits(run) as any[];
    expect(init.plugins).toEqual([{ name: PLUGIN.name, path: pluginDir, version: PLUGIN.version }]);
    expect(init.skills).toContain(PLUGIN.skill);
    expect(init.mcp_servers).toContainEqual(
      expect.objectContaining({ name: PLUGIN.server, status: "connected" }),
    );
    const { initialization, commands, agents } = await offered;
    expect(initialization.plugins_applied).toBe(true);
    expect(commands.map((c: any) => c.name)).toContain(PLUGIN.command);
    expect(agents.map((a: any) => a.name)).toContain(PLUGIN.agent);
    // The command expanded, the skill loaded, the server answered and the plugin's hook ran.
    expect(JSON.stringify(fx.mock.requests[0].body.messages[0])).toContain(PLUGIN.commandMarker);
    const [style, echo] = toolResults(run).map((r) => JSON.stringify(r.content));
    expect(style).toContain(PLUGIN.skillMarker);
    expect(echo).toContain("echo: sent-by-initialize");
    expect(readFileSync(join(pluginDir, "hook.log"), "utf8")).toBe("hooked\n");
  });
});

describe("the Claude Agent SDK's session edges", () => {
  it("sessionStore receives every entry Goat writes to its transcript, under the session's key", async () => {
    const { store, appended } = memoryStore();
    fx.mock.enqueue(reply.text("mirrored answer"));
    const run = await collect(
      sdk.query({ prompt: "remember this", options: sdkOptions(fx, { sessionStore: store }) }),
    );
    expect(run.error).toBeUndefined();
    const [result] = results(run) as any[];
    expect(result.result).toBe("mirrored answer");
    const key = `${fx.work.path.replace(/[^a-zA-Z0-9]/g, "-")}/${result.session_id}`;
    expect([...appended.keys()]).toEqual([key]);
    const local = goatTranscript(result.session_id);
    expect(local.length).toBeGreaterThan(2);
    expect(appended.get(key)).toEqual(local);
    expect(JSON.stringify(appended.get(key))).toContain("mirrored answer");
  });

  it("continue: true with no earlier session starts a new one; the next continue picks it up", async () => {
    fx.mock.enqueue(reply.text("first answer"), reply.text("second answer"));
    const first = await collect(sdk.query({ prompt: "one", options: sdkOptions(fx, { continue: true }) }));
    expect(first.error).toBeUndefined();
    const [r1] = results(first) as any[];
    expect(r1.subtype).toBe("success");
    expect(r1.result).toBe("first answer");
    const second = await collect(sdk.query({ prompt: "two", options: sdkOptions(fx, { continue: true }) }));
    const [r2] = results(second) as any[];
    expect(r2.session_id).toBe(r1.session_id);
    expect(JSON.stringify(fx.mock.requests[1].body.messages)).toContain("first answer");
  });
});
