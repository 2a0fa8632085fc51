/**
 * The front matter reader of Claude Code's markdown files: the part of YAML those files use, and a
 * line it cannot read reported with its line number while the other keys and the body still count.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { expandCommand, findCommand, splitArguments } from "../../src/runtime/custom-commands.js";
import { readAgentFiles } from "../../src/settings/claude-agents.js";
import { parseFrontMatter } from "../../src/settings/front-matter.js";
import { tempDir } from "../support/temp-dirs.js";

describe("parseFrontMatter", () => {
  it("reads plain, quoted, [a, b] and - item values, and keeps the body", () => {
    const file = parseFrontMatter(
      "---\nname: reviewer\ndescription: \"Reviews: bugs\"\ntools: [Read, 'Grep']\nskills:\n  - one\n  - two\nempty:\n# a comment\n---\nBody line\n",
    );
    expect(file.fields).toEqual({
      name: "reviewer",
      description: "Reviews: bugs",
      tools: ["Read", "Grep"],
      skills: ["one", "two"],
      empty: "",
    });
    expect(file.raw.tools).toBe("[Read, 'Grep']");
    expect(file.body).toBe("Body line\n");
    expect(file.problems).toEqual([]);
  });

  it("a line it cannot read is a problem with its line number; the other keys still count", () => {
    const file = parseFrontMatter("---\nname: a\n: broken\ndescription: 'unclosed\nmodel: haiku\n---\nx");
    expect(file.fields).toEqual({ name: "a", model: "haiku" });
    expect(file.problems.map((p) => p.line)).toEqual([3, 4]);
  });

  it("no front matter: all body; one never closed: all body and a problem at line 1", () => {
    expect(parseFrontMatter("just text").body).toBe("just text");
    const open = parseFrontMatter("---\nname: a\nno end");
    expect(open.fields).toEqual({});
    expect(open.problems).toEqual([{ line: 1, message: expect.stringContaining("never closed") }]);
  });
});

describe("slash command expansion", () => {
  const noSession = {
    cwd: "/nowhere",
    directories: () => [],
    bashTool: () => undefined,
    gate: async () => ({ action: "deny" as const, message: "no" }),
    mayRead: async () => false,
    toolContext: () => {
      throw new Error("not used");
    },
    warn: () => {},
  };

  it("quoted words are one argument; a missing $n is empty; $10 is not $1 followed by 0", async () => {
    expect(splitArguments(`a "b c" 'd'`)).toEqual(["a", "b c", "d"]);
    const text = await expandCommand(
      { description: "", prompt: "[$1][$2][$3] all=$ARGUMENTS $10" },
      `a "b c"`,
      noSession,
      new AbortController().signal,
    );
    expect(text).toBe(`[a][b c][] all=a "b c" $10`);
  });

  it("a ! line in a session without Bash is a note, never run", async () => {
    const text = await expandCommand(
      { description: "", prompt: "x !`echo hi` y" },
      "",
      noSession,
      new AbortController().signal,
    );
    expect(text).toBe("x [`echo hi` was not run: this session has no Bash tool] y");
  });

  it("findCommand: by name, by namespace:name, and nothing for an unknown name or a path", () => {
    const commands = {
      deep: { description: "", prompt: "", namespace: "ns" },
      fix: { description: "", prompt: "" },
    };
    expect(findCommand("/fix 12 3", commands)).toMatchObject({ name: "fix", args: "12 3" });
    expect(findCommand("/ns:deep", commands)?.command).toBe(commands.deep);
    expect(findCommand("/other", commands)).toBeUndefined();
    expect(findCommand("/usr/bin/env", commands)).toBeUndefined();
  });
});

describe("agent files", () => {
  it("a name that is not a plain word, or a file without a description, is one warning naming the file; the others load", () => {
    const cwd = tempDir("goat-agent-files-");
    const dir = path.join(cwd, ".claude", "agents");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "a.md"), "---\nname: Evil name\\u001b[2J\ndescription: d\n---\nPrompt\n");
    fs.writeFileSync(path.join(dir, "b.md"), "---\nname: b\n---\nPrompt\n");
    fs.writeFileSync(path.join(dir, "c.md"), "---\ndescription: Sees it all\nmodel: opusplan\n---\nPrompt\n");
    const warnings: string[] = [];
    const agents = readAgentFiles(cwd, {}, ["project"], (w) => warnings.push(w));
    expect(Object.keys(agents)).toEqual(["c"]);
    expect(agents.c.model).toBeUndefined();
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toContain(path.join(dir, "a.md"));
    expect(warnings[1]).toContain(path.join(dir, "b.md"));
    expect(warnings[2]).toContain("opusplan");
  });
});
