/**
 * A Claude Code project's subagents and custom slash commands in `goat -p`: in a trusted folder the
 * agent is offered to the Task tool and `/fix 123` reaches the model expanded (its `!` line run only
 * when the rules allow it); in a folder the user has not trusted, neither applies and one stderr line
 * says what was left out (before, the files were ignored and the prompt went to the model as typed).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { reply } from "../support/mock-provider.js";
import { jsonLines, runCli, trustWorkFolder, useCliFixture } from "./helpers.js";

const fx = useCliFixture("goat-claude-defs");

function write(file: string, text: string) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

function writeProject() {
  const root = fx.work.path;
  write(
    join(root, ".claude", "agents", "reviewer.md"),
    "---\nname: reviewer\ndescription: Reviews a change for bugs\ntools: Read, Grep\n---\nYou review code.\n",
  );
  write(
    join(root, ".claude", "commands", "fix.md"),
    "---\ndescription: Fix an issue\nargument-hint: [issue]\n---\nFix issue $1 ($ARGUMENTS).\nNotes: @notes.txt\nStatus: !`echo status-ok`\nDanger: !`rm victim.txt`\n",
  );
  write(join(root, ".claude", "commands", "ns", "deep.md"), "Dig into $1.\n");
  write(join(root, ".claude", "settings.json"), JSON.stringify({ permissions: { deny: ["Bash(rm:*)"] } }));
  write(join(root, "notes.txt"), "the notes");
  write(join(root, "victim.txt"), "keep me");
}

const run = (prompt: string) =>
  runCli(["-p", prompt, "--output-format", "stream-json", "--verbose", "--model", "claude-sonnet-4-5"], {
    env: fx.env,
    cwd: fx.work.path,
    timeoutMs: 30_000,
  });

describe("a Claude Code project's agents and commands in goat -p", () => {
  it("trusted folder: the agent is offered to Task and listed in init; /fix 123 is expanded, its denied ! line not run", async () => {
    writeProject();
    trustWorkFolder(fx);
    fx.mock.enqueue(reply.text("done"));
    const out = await run("/fix 123 now");
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    const init = jsonLines(out.stdout).find((m) => m.type === "system" && m.subtype === "init");
    expect(init.agents).toEqual(["reviewer"]);
    expect(init.slash_commands).toEqual(["compact", "deep", "fix"]);
    const body = fx.mock.requests[0].body;
    const task = body.tools.find((t: { name: string }) => t.name === "Task");
    expect(task.description).toContain("- reviewer: Reviews a change for bugs");
    const prompt = JSON.stringify(body.messages[0].content);
    expect(prompt).toContain("Fix issue 123 (123 now).");
    expect(prompt).toContain("Notes: the notes");
    expect(prompt).toContain("Status: status-ok");
    expect(prompt).toMatch(/Danger: \[`rm victim.txt` was not run/);
    expect(existsSync(join(fx.work.path, "victim.txt"))).toBe(true);
  });

  it("untrusted folder: the project's agents and commands do not apply, and stderr names them", async () => {
    writeProject();
    fx.mock.enqueue(reply.text("done"));
    const out = await run("/fix 123");
    expect(out.code).toBe(0);
    expect(out.stderr).toContain("slash commands /deep, /fix (.claude/commands)");
    expect(out.stderr).toContain("subagents reviewer (.claude/agents)");
    const init = jsonLines(out.stdout).find((m) => m.type === "system" && m.subtype === "init");
    expect(init.agents).toEqual(["general-purpose"]);
    expect(init.slash_commands).toEqual(["compact"]);
    expect(JSON.stringify(fx.mock.requests[0].body.messages[0].content)).toContain("/fix 123");
  });

  it("a user's commands from $CLAUDE_CONFIG_DIR/commands apply in any folder", async () => {
    write(join(fx.env.CLAUDE_CONFIG_DIR, "commands", "hello.md"), "Say hello to $ARGUMENTS.\n");
    fx.mock.enqueue(reply.text("hi"));
    const out = await run("/hello the team");
    expect(out.code).toBe(0);
    expect(JSON.stringify(fx.mock.requests[0].body.messages[0].content)).toContain("Say hello to the team.");
  });
});
