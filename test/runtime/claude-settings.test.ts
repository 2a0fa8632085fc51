/**
 * Claude Code's settings files read by `query()` beside Goat's: a project's `.claude/settings.json`
 * deny rules hold (they were silently skipped before), the levels merge in Claude's precedence with
 * Goat's file winning within a level, and a Claude file Goat cannot fully use is a warning, not a
 * failure.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { QueryOptions } from "../../src/sdk/options.js";
import { query } from "../../src/sdk/query.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { collect, mockOptions, resultOf, tempDir, toolResultsSent } from "./helpers.js";

let mock: MockProvider;
let home: string;
let claudeHome: string;
let cwd: string;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.requests.length = 0;
  home = tempDir("goat-claude-settings-home-");
  claudeHome = tempDir("goat-claude-settings-claude-");
  cwd = tempDir("goat-claude-settings-cwd-");
});

function write(file: string, json: unknown) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof json === "string" ? json : JSON.stringify(json));
}
const claudeUser = () => path.join(claudeHome, "settings.json");
const claudeProject = () => path.join(cwd, ".claude", "settings.json");
const claudeLocal = () => path.join(cwd, ".claude", "settings.local.json");
const goatProject = () => path.join(cwd, ".goat", "settings.json");

function options(extra: QueryOptions = {}): QueryOptions {
  const base = mockOptions(mock, "anthropic", {
    cwd,
    env: { PATH: process.env.PATH, GOAT_HOME: home, CLAUDE_CONFIG_DIR: claudeHome },
  });
  delete base.model;
  return { ...base, ...extra };
}

/** A Claude Code project forbidding `rm` and the reading of its secret. */
function writeClaudeProject() {
  write(claudeProject(), {
    $schema: "https://json.schemastore.org/claude-code-settings.json",
    permissions: { deny: ["Bash(rm:*)", "Read(./secret.txt)"] },
    // Keys Claude Code has and Goat does not act on: ignored without a word.
    statusLine: { type: "command", command: "echo status" },
    enabledPlugins: { "formatter@team": true },
    includeCoAuthoredBy: false,
  });
  fs.writeFileSync(path.join(cwd, "secret.txt"), "the launch code");
  fs.writeFileSync(path.join(cwd, "victim.txt"), "keep me");
}

const attack = () =>
  reply.toolCalls([
    { name: "Bash", input: { command: "rm victim.txt" }, id: "b1" },
    { name: "Read", input: { file_path: path.join(cwd, "secret.txt") }, id: "r1" },
  ]);

describe("Claude Code's settings files in query()", () => {
  it("a project's .claude/settings.json deny rules hold with settingSources project, even in bypassPermissions", async () => {
    writeClaudeProject();
    mock.enqueue(attack(), reply.text("refused"));
    const messages = await collect(
      query({
        prompt: "x",
        options: options({ tools: ["Bash", "Read"], settingSources: ["project"] }),
      }),
    );
    const [rm, read] = toolResultsSent(mock.requests[1].body);
    expect(rm.content).toMatch(/denied by the rule Bash\(rm:\*\)/);
    expect(read.content).toMatch(/denied by the rule Read\(\.\/secret\.txt\)/);
    expect(read.content).not.toContain("launch code");
    expect(fs.readFileSync(path.join(cwd, "victim.txt"), "utf8")).toBe("keep me");
    expect(resultOf(messages).permission_denials).toHaveLength(2);
    // Unknown Claude keys are not worth a warning.
    expect(messages.filter((m) => (m as any).level === "warning")).toEqual([]);
  });

  it("is not read without settingSources: that stays the embedder's choice", async () => {
    writeClaudeProject();
    mock.enqueue(attack(), reply.text("ran"));
    await collect(query({ prompt: "x", options: options({ tools: ["Bash", "Read"] }) }));
    expect(fs.existsSync(path.join(cwd, "victim.txt"))).toBe(false);
  });

  it("user, project, local in Claude's precedence; within a level Goat's file wins; rules from every file add up", async () => {
    write(claudeUser(), {
      model: "anthropic/claude-user",
      permissions: { deny: ["Bash(rm:*)"] },
    });
    write(claudeProject(), { model: "anthropic/claude-project" });
    mock.enqueue(...Array.from({ length: 4 }, () => reply.text("ok")));
    const run = (sources: QueryOptions["settingSources"]) =>
      collect(query({ prompt: "x", options: options({ settingSources: sources }) }));
    await run(["user"]);
    await run(["user", "project"]);
    write(goatProject(), { model: "anthropic/goat-project", permissions: { allow: ["Bash(rm:*)"] } });
    await run(["user", "project"]);
    write(claudeLocal(), { model: "anthropic/claude-local" });
    await run(["user", "project", "local"]);
    expect(mock.requests.map((r) => r.body.model)).toEqual([
      "claude-user",
      "claude-project",
      "goat-project",
      "claude-local",
    ]);

    // The user's Claude deny rule beats the Goat project file's allow rule for the same command.
    mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: "rm victim.txt" }, id: "b1" }]),
      reply.text("done"),
    );
    fs.writeFileSync(path.join(cwd, "victim.txt"), "keep me");
    await collect(
      query({
        prompt: "x",
        options: options({ tools: ["Bash"], permissionMode: "default", settingSources: ["user", "project"] }),
      }),
    );
    expect(toolResultsSent(mock.requests[5].body)[0].content).toMatch(/denied by the rule Bash\(rm:\*\)/);
    expect(fs.existsSync(path.join(cwd, "victim.txt"))).toBe(true);
  });

  it("a malformed Claude file is one warning naming it; the other files, and the usable rest of a file, still apply", async () => {
    write(claudeProject(), '{ "permissions": { "deny": ["Bash(rm:*)"] ');
    write(claudeLocal(), {
      model: "opusplan",
      permissions: { deny: ["Read(./secret.txt)"], defaultMode: "auto" },
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              { type: "http", url: "http://127.0.0.1:9/hook" },
              { type: "command", command: "echo blocked-by-claude-hook >&2; exit 2" },
            ],
          },
        ],
      },
    });
    fs.writeFileSync(path.join(cwd, "secret.txt"), "the launch code");
    mock.enqueue(
      reply.toolCalls([
        { name: "Read", input: { file_path: path.join(cwd, "secret.txt") }, id: "r1" },
        { name: "Bash", input: { command: "echo hi" }, id: "b1" },
      ]),
      reply.text("done"),
    );
    const messages = await collect(
      query({
        prompt: "x",
        options: options({ tools: ["Bash", "Read"], settingSources: ["project", "local"] }),
      }),
    );
    const warnings = messages.filter((m) => (m as any).level === "warning").map((m) => (m as any).content);
    expect(warnings).toHaveLength(4);
    expect(warnings[0]).toContain(`invalid JSON in settings file ${claudeProject()}`);
    expect(warnings[0]).toContain("the file was ignored");
    expect(warnings.slice(1).join("\n")).toContain(`${claudeLocal()}: permissions.defaultMode "auto"`);
    expect(warnings.slice(1).join("\n")).toContain(`${claudeLocal()}: PreToolUse hook of type "http"`);
    expect(warnings.slice(1).join("\n")).toContain(`${claudeLocal()}: model "opusplan" is not a model name`);
    expect(mock.requests[0].body.model).toBe("claude-sonnet-4-5"); // Goat's default, not a failed start
    const [read, bash] = toolResultsSent(mock.requests[1].body);
    expect(read.content).toMatch(/denied by the rule Read\(\.\/secret\.txt\)/);
    expect(bash.content).toContain("blocked-by-claude-hook");
  });
});
