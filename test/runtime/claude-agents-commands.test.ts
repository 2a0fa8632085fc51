/**
 * A Claude Code project's subagents (`.claude/agents/*.md`) and custom slash commands
 * (`.claude/commands/**\/*.md`) in `query()` with `settingSources`: the agent is offered to the Task
 * tool and listed in `system/init` and `supportedAgents()`; `/fix 123` becomes the command's prompt
 * with its arguments, its `@file` (a file outside the project stays as written) and its `!` lines,
 * each run only when the permission rules (or its `allowed-tools`, after deny rules) let it (before, the prompt went to the model as typed and
 * the files were not read at all).
 */
import fs from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { QueryOptions } from "../../src/sdk/options.js";
import { query } from "../../src/sdk/query.js";
import { reply } from "../support/mock-provider.js";
import { collect, mockOptions, resultOf, tempDir, useMockProvider } from "./helpers.js";

const mock = useMockProvider();
let home: string;
let claudeHome: string;
let cwd: string;
let outside: string;
beforeEach(() => {
  home = tempDir("goat-claude-defs-home-");
  claudeHome = tempDir("goat-claude-defs-claude-");
  cwd = tempDir("goat-claude-defs-cwd-");
  outside = path.join(tempDir("goat-claude-defs-outside-"), "private.txt");
  fs.writeFileSync(outside, "the outside secret");
});

function write(file: string, text: string) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** The fixture project: an agent, a broken agent file, two commands (one in a subfolder), a deny rule. */
function writeProject() {
  write(
    path.join(cwd, ".claude", "agents", "reviewer.md"),
    "---\nname: reviewer\ndescription: Reviews a change for bugs\ntools: Read, Grep\nmodel: inherit\n---\nYou review code. Report bugs only.\n",
  );
  write(
    path.join(cwd, ".claude", "agents", "sloppy.md"),
    "---\nname: sloppy\nthis line is not yaml\ndescription: Still loads\n---\nYou are sloppy.\n",
  );
  write(
    path.join(cwd, ".claude", "commands", "fix.md"),
    [
      "---",
      "description: Fix an issue",
      "argument-hint: [issue-number]",
      // Approves the mkdir line (which would ask); the rm line stays denied by the project's deny rule.
      "allowed-tools: Bash(mkdir:*), Bash(rm:*)",
      "---",
      "Fix issue #$ARGUMENTS (number $1).",
      "Notes: @notes.txt",
      "Status: !`echo status-ok`",
      // A command's output is not scanned for @ references: it stays as the command printed it.
      "Echo: !`echo @notes.txt`",
      "Danger: !`rm victim.txt`",
      "Asks: !`touch made.txt`",
      "Made: !`mkdir made-dir`",
      `Outside: @${outside}`,
      "",
    ].join("\n"),
  );
  write(path.join(cwd, ".claude", "commands", "ns", "deep.md"), "Dig into $1 deeply.\n");
  write(
    path.join(cwd, ".claude", "settings.json"),
    JSON.stringify({ permissions: { deny: ["Bash(rm:*)"] } }),
  );
  // A file's text is not scanned for ! lines: this one is inlined as written, never run.
  write(path.join(cwd, "notes.txt"), "the notes of the project !`echo smuggled`");
  write(path.join(cwd, "victim.txt"), "keep me");
}

function options(extra: QueryOptions = {}): QueryOptions {
  return mockOptions(mock, "anthropic", {
    cwd,
    env: { PATH: process.env.PATH, GOAT_HOME: home, CLAUDE_CONFIG_DIR: claudeHome },
    permissionMode: "default",
    tools: ["Bash", "Read", "Task"],
    ...extra,
  });
}

/** The text of the first user message the model received. */
function firstPrompt(): string {
  return JSON.stringify(mock.requests[0].body.messages[0].content);
}

function warnings(messages: Awaited<ReturnType<typeof collect>>): string[] {
  return messages.flatMap((m) =>
    m.type === "system" && m.subtype === "informational" ? [String(m.content)] : [],
  );
}

describe("a Claude Code project's agents and commands in query()", () => {
  it("settingSources project: the file agent is offered to Task and listed; a malformed line is one warning naming the file and line", async () => {
    writeProject();
    mock.enqueue(reply.text("ok"));
    const q = query({ prompt: "hello", options: options({ settingSources: ["project"] }) });
    const messages = await collect(q);
    expect(resultOf(messages).subtype).toBe("success");
    const init = messages.find((m) => m.type === "system" && m.subtype === "init") as { agents?: string[] };
    expect(init.agents).toEqual(["reviewer", "sloppy"]);
    const task = mock.requests[0].body.tools.find((t: { name: string }) => t.name === "Task");
    expect(task.description).toContain("- reviewer: Reviews a change for bugs");
    expect(warnings(messages)).toContainEqual(
      expect.stringContaining(`${path.join(cwd, ".claude", "agents", "sloppy.md")}:3:`),
    );
  });

  it("an agents option wins over a file's agent of the same name; without settingSources no file is read", async () => {
    writeProject();
    mock.enqueue(reply.text("ok"), reply.text("ok"));
    const mine = { reviewer: { description: "The host's reviewer", prompt: "host" } };
    const withFiles = query({
      prompt: "hi",
      options: options({ settingSources: ["project"], agents: mine }),
    });
    await collect(withFiles);
    expect((await withFiles.supportedAgents()).find((a) => a.name === "reviewer")?.description).toBe(
      "The host's reviewer",
    );
    const without = query({ prompt: "/fix 1", options: options() });
    const messages = await collect(without);
    const init = messages.find((m) => m.type === "system" && m.subtype === "init") as {
      agents?: string[];
      slash_commands: string[];
    };
    expect(init.agents).toEqual(["general-purpose"]);
    expect(init.slash_commands).toEqual(["compact"]);
    expect(JSON.stringify(mock.requests[1].body.messages[0].content)).toContain("/fix 1");
  });

  it("/fix 123 expands $ARGUMENTS, $1 and @file; a !-line runs only when the rules let it; an outside file is not read", async () => {
    writeProject();
    mock.enqueue(reply.text("fixed"));
    const q = query({ prompt: "/fix 123 urgent", options: options({ settingSources: ["project"] }) });
    const messages = await collect(q);
    const prompt = firstPrompt();
    expect(prompt).toContain("Fix issue #123 urgent (number 123).");
    expect(prompt).toContain("Notes: the notes of the project !`echo smuggled`");
    expect(prompt).toContain("Status: status-ok");
    expect(prompt).toContain("Echo: @notes.txt");
    expect(prompt).toMatch(/Danger: \[`rm victim.txt` was not run: [^\]]*Bash\(rm:\*\)/);
    expect(prompt).toMatch(/Asks: \[`touch made.txt` was not run/);
    expect(prompt).toContain(`Outside: @${outside}`);
    expect(prompt).not.toContain("the outside secret");
    expect(fs.existsSync(path.join(cwd, "victim.txt"))).toBe(true);
    expect(fs.existsSync(path.join(cwd, "made.txt"))).toBe(false);
    expect(prompt).not.toMatch(/mkdir made-dir` was not run/);
    expect(fs.statSync(path.join(cwd, "made-dir")).isDirectory()).toBe(true);
    expect(warnings(messages)).toContainEqual(expect.stringContaining(`@${outside} is outside`));
  });

  it("supportedCommands and system/init list the project's commands; a subfolder shows in the description and names it", async () => {
    writeProject();
    mock.enqueue(reply.text("ok"));
    const q = query({ prompt: "/ns:deep parser", options: options({ settingSources: ["project"] }) });
    const messages = await collect(q);
    expect(firstPrompt()).toContain("Dig into parser deeply.");
    const init = messages.find((m) => m.type === "system" && m.subtype === "init") as {
      slash_commands: string[];
    };
    expect(init.slash_commands).toEqual(["compact", "deep", "fix"]);
    expect(await q.supportedCommands()).toEqual([
      {
        name: "compact",
        description: "Summarise the conversation to free context",
        argumentHint: "[instructions]",
      },
      { name: "deep", description: "Dig into $1 deeply. (project:ns)", argumentHint: "" },
      { name: "fix", description: "Fix an issue (project)", argumentHint: "[issue-number]" },
    ]);
    expect((await q.initializationResult()).commands.map((c) => c.name)).toEqual(["compact", "deep", "fix"]);
  });

  it("user-level commands and agents come from $CLAUDE_CONFIG_DIR with settingSources user; the project's win by name", async () => {
    writeProject();
    write(path.join(claudeHome, "commands", "fix.md"), "---\ndescription: The user's fix\n---\nuser fix\n");
    write(path.join(claudeHome, "commands", "mine.md"), "---\ndescription: Mine\n---\nmine\n");
    write(
      path.join(claudeHome, "agents", "helper.md"),
      "---\nname: helper\ndescription: The user's helper\n---\nHelp.\n",
    );
    mock.enqueue(reply.text("ok"), reply.text("ok"));
    const both = query({ prompt: "hi", options: options({ settingSources: ["user", "project"] }) });
    await collect(both);
    const commands = await both.supportedCommands();
    expect(commands.map((c) => [c.name, c.description])).toEqual([
      ["compact", "Summarise the conversation to free context"],
      ["deep", "Dig into $1 deeply. (project:ns)"],
      ["fix", "Fix an issue (project)"],
      ["mine", "Mine (user)"],
    ]);
    expect((await both.supportedAgents()).map((a) => a.name).sort()).toEqual([
      "helper",
      "reviewer",
      "sloppy",
    ]);
    const userOnly = query({ prompt: "hi", options: options({ settingSources: ["user"] }) });
    await collect(userOnly);
    expect((await userOnly.supportedCommands()).map((c) => c.description)).toEqual([
      "Summarise the conversation to free context",
      "The user's fix (user)",
      "Mine (user)",
    ]);
  });
});

describe("Goat's built-in /compact at a query() prompt", () => {
  it("summarises the history without a model turn of its own, and the run ends with a result", async () => {
    async function* prompts() {
      yield { type: "user" as const, message: { role: "user" as const, content: "remember the word plum" } };
      yield { type: "user" as const, message: { role: "user" as const, content: "/compact keep the fruit" } };
    }
    mock.enqueue(reply.text("noted"), reply.text("The user asked to remember plum."));
    const messages = await collect(query({ prompt: prompts(), options: options() }));
    const results = messages.filter((m) => m.type === "result");
    expect(results.map((r) => r.subtype)).toEqual(["success", "success"]);
    expect(messages.some((m) => m.type === "system" && m.subtype === "compact_boundary")).toBe(true);
    // Two calls: the first answer, then the summary (told the instructions); the command is not a prompt.
    expect(mock.requests).toHaveLength(2);
    expect(JSON.stringify(mock.requests[1].body)).toContain("keep the fruit");
    expect(JSON.stringify(mock.requests[1].body)).not.toContain('"/compact');
  });
});
