/**
 * Memory in `query()`, as Claude Code reads it: `~/.claude/CLAUDE.md` (`$CLAUDE_CONFIG_DIR`), the
 * project's `CLAUDE.md` and `.claude/CLAUDE.md`, `CLAUDE.local.md`, `.claude/rules/*.md` (those with
 * `paths:` only once a matching file is touched), `@path` imports (five hops at most, none outside
 * the project without permission), and a subfolder's `CLAUDE.md` after the model reads a file there,
 * once. Levels follow `settingSources`. Before, only `AGENTS.md` / `CLAUDE.md` of the cwd and its
 * parents were read, for Goat's preset only, and `@path` lines went to the model as written.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { QueryOptions } from "../../src/sdk/options.js";
import { query } from "../../src/sdk/query.js";
import { type ScriptedModel, scriptedModel } from "../../src/testing/scripted-model.js";
import { reply } from "../support/mock-provider.js";
import { collect, resultOf, scriptedOptions, tempDir } from "./helpers.js";

// The model is scripted in memory: the subject is which memory files reach it, not the wire.
let model: ScriptedModel;
let claudeHome: string;
let cwd: string;
let outside: string;
beforeEach(() => {
  model = scriptedModel();
  claudeHome = tempDir("goat-memory-claude-");
  cwd = tempDir("goat-memory-cwd-");
  outside = tempDir("goat-memory-outside-");
});

function write(file: string, text: string) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

function options(extra: QueryOptions = {}): QueryOptions {
  return scriptedOptions(model, {
    cwd,
    env: { PATH: process.env.PATH, HOME: outside, CLAUDE_CONFIG_DIR: claudeHome },
    tools: ["Read"],
    ...extra,
  });
}

/** The system prompt of request `i`. */
function systemOf(i: number): string {
  return JSON.stringify(model.requests[i].system ?? "");
}

/** Everything of request `i` the model reads after the system prompt. */
function messagesOf(i: number): string {
  return JSON.stringify(model.requests[i].messages);
}

function warnings(messages: Awaited<ReturnType<typeof collect>>): string[] {
  return messages.flatMap((m) =>
    m.type === "system" && m.subtype === "informational" ? [String(m.content)] : [],
  );
}

describe("memory files in query()", () => {
  it("reads each kind of file of the levels settingSources names, and none of a level left out", async () => {
    write(path.join(claudeHome, "CLAUDE.md"), "USER-MEMORY");
    write(path.join(claudeHome, "rules", "style.md"), "USER-RULE");
    write(path.join(cwd, "CLAUDE.md"), "PROJECT-MEMORY");
    write(path.join(cwd, ".claude", "CLAUDE.md"), "DOT-CLAUDE-MEMORY");
    write(path.join(cwd, "CLAUDE.local.md"), "LOCAL-MEMORY");
    write(path.join(cwd, ".claude", "rules", "testing.md"), "PROJECT-RULE");
    write(path.join(cwd, ".claude", "rules", "api.md"), '---\npaths:\n  - "src/api/**"\n---\nAPI-RULE');
    model.enqueue(reply.text("ok"), reply.text("ok"));
    await collect(
      query({ prompt: "hi", options: options({ settingSources: ["user", "project", "local"] }) }),
    );
    const all = systemOf(0);
    for (const text of [
      "USER-MEMORY",
      "USER-RULE",
      "PROJECT-MEMORY",
      "DOT-CLAUDE-MEMORY",
      "LOCAL-MEMORY",
      "PROJECT-RULE",
    ]) {
      expect(all).toContain(text);
    }
    // A rule with paths: waits for a matching file.
    expect(all).not.toContain("API-RULE");
    expect(all.indexOf("USER-MEMORY")).toBeLessThan(all.indexOf("PROJECT-MEMORY"));

    await collect(query({ prompt: "hi", options: options({ settingSources: ["project"] }) }));
    const project = systemOf(1);
    expect(project).toContain("PROJECT-MEMORY");
    expect(project).not.toContain("USER-MEMORY");
    expect(project).not.toContain("LOCAL-MEMORY");
  });

  it("a custom system prompt keeps its text, memory follows it with settingSources and not without", async () => {
    write(path.join(cwd, "CLAUDE.md"), "PROJECT-MEMORY");
    model.enqueue(reply.text("ok"), reply.text("ok"));
    await collect(
      query({ prompt: "hi", options: options({ systemPrompt: "MINE", settingSources: ["project"] }) }),
    );
    await collect(query({ prompt: "hi", options: options({ systemPrompt: "MINE" }) }));
    expect(systemOf(0)).toMatch(/MINE[\s\S]*PROJECT-MEMORY/);
    expect(systemOf(1)).not.toContain("PROJECT-MEMORY");
  });

  it("follows an @path import chain, five hops at most, and not into code", async () => {
    write(
      path.join(cwd, "CLAUDE.md"),
      "ROOT see @docs/m1.md and `@docs/code.md`\n```\n@docs/fenced.md\n```\n",
    );
    for (let i = 1; i <= 7; i++) {
      const next = i < 7 ? `@m${i + 1}.md` : "";
      write(path.join(cwd, "docs", `m${i}.md`), `HOP-${i} ${next}`);
    }
    write(path.join(cwd, "docs", "code.md"), "IN-CODE-SPAN");
    write(path.join(cwd, "docs", "fenced.md"), "IN-FENCE");
    model.enqueue(reply.text("ok"));
    const messages = await collect(
      query({ prompt: "hi", options: options({ settingSources: ["project"] }) }),
    );
    expect(resultOf(messages).subtype).toBe("success");
    const system = systemOf(0);
    for (let i = 1; i <= 5; i++) expect(system).toContain(`HOP-${i}`);
    expect(system).not.toContain("HOP-6");
    expect(system).not.toContain("IN-CODE-SPAN");
    expect(system).not.toContain("IN-FENCE");
    // The importing file keeps its text; the imported one says where it came from.
    expect(system).toContain("ROOT see @docs/m1.md");
    expect(system).toContain(`(imported by ${path.join(cwd, "CLAUDE.md")})`);
    const depth = warnings(messages).filter((w) => w.includes("@m6.md"));
    expect(depth).toHaveLength(1);
    expect(depth[0]).toContain(`${path.join(cwd, "docs", "m5.md")}:1`);
  });

  it("an import outside the project is not read (one warning); a missing one is one warning naming it and the line", async () => {
    write(path.join(outside, "secret.md"), "OUTSIDE-SECRET");
    write(
      path.join(cwd, "CLAUDE.md"),
      `line one\nsee @${path.join(outside, "secret.md")}\nand @~/secret.md\nthen @gone.md\n`,
    );
    fs.symlinkSync(path.join(outside, "secret.md"), path.join(cwd, "link.md"));
    write(path.join(cwd, ".claude", "CLAUDE.md"), "via @../link.md");
    model.enqueue(reply.text("ok"));
    const messages = await collect(
      query({ prompt: "hi", options: options({ settingSources: ["project"] }) }),
    );
    const system = systemOf(0);
    expect(system).not.toContain("OUTSIDE-SECRET");
    expect(system).toContain(`see @${path.join(outside, "secret.md")}`);
    const all = warnings(messages);
    expect(all.filter((w) => w.includes("secret.md") && w.includes("outside the project"))).toHaveLength(2);
    expect(all.filter((w) => w.includes("link.md") && w.includes("outside the project"))).toHaveLength(1);
    const missing = all.filter((w) => w.includes("@gone.md"));
    expect(missing).toEqual([expect.stringContaining(`${path.join(cwd, "CLAUDE.md")}:4`)]);
  });

  it("user memory may import from ~/.claude, the project may not", async () => {
    write(path.join(claudeHome, "CLAUDE.md"), "USER @prefs.md");
    write(path.join(claudeHome, "prefs.md"), "USER-PREFS");
    write(path.join(cwd, "CLAUDE.md"), `PROJECT @${path.join(claudeHome, "prefs.md")}`);
    model.enqueue(reply.text("ok"));
    const messages = await collect(
      query({ prompt: "hi", options: options({ settingSources: ["user", "project"] }) }),
    );
    expect(systemOf(0)).toContain("USER-PREFS");
    // Already shown by the user level; the project's import of it is refused all the same.
    expect(warnings(messages).filter((w) => w.includes("outside the project"))).toHaveLength(1);
  });

  it("a subfolder's CLAUDE.md and a matching paths: rule reach the model after a Read there, once, as Goat's reminder", async () => {
    write(path.join(cwd, "CLAUDE.md"), "PROJECT-MEMORY");
    write(path.join(cwd, "src", "api", "CLAUDE.md"), "NESTED-API-MEMORY");
    write(path.join(cwd, "src", "api", "a.ts"), "export const a = 1;\n");
    write(path.join(cwd, "src", "api", "b.ts"), "export const b = 2;\n");
    write(path.join(cwd, ".claude", "rules", "api.md"), "---\npaths: src/api/**/*.ts\n---\nAPI-RULE");
    const read = (id: string, file: string) =>
      reply.toolCalls([{ name: "Read", id, input: { file_path: path.join(cwd, "src", "api", file) } }]);
    model.enqueue(read("toolu_1", "a.ts"), read("toolu_2", "b.ts"), reply.text("done"));
    const messages = await collect(
      query({
        prompt: "read them",
        options: options({ settingSources: ["project"], permissionMode: "bypassPermissions" }),
      }),
    );
    expect(resultOf(messages).subtype).toBe("success");
    expect(systemOf(0)).not.toContain("NESTED-API-MEMORY");
    expect(messagesOf(0)).not.toContain("NESTED-API-MEMORY");
    const after = model.requests[2].messages as Array<{ content: unknown }>;
    const blocks = after.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    const reminders = blocks.filter(
      (b: { type: string; text?: string }) => b.type === "text" && b.text?.includes("NESTED-API-MEMORY"),
    );
    expect(reminders).toHaveLength(1);
    expect(reminders[0].text).toMatch(/^<system-reminder>/);
    expect(reminders[0].text).toContain("API-RULE");
    // Not inside the tool's output, where a file could imitate it.
    const results = blocks.filter((b: { type: string }) => b.type === "tool_result");
    expect(JSON.stringify(results)).not.toContain("NESTED-API-MEMORY");
    expect(JSON.stringify(after).split("NESTED-API-MEMORY")).toHaveLength(2);
  });

  it("a folder linked from outside the project brings in no CLAUDE.md when a file in it is read", async () => {
    write(path.join(outside, "CLAUDE.md"), "OUTSIDE-MEMORY");
    write(path.join(outside, "f.txt"), "data\n");
    fs.symlinkSync(outside, path.join(cwd, "linked"));
    model.enqueue(
      reply.toolCalls([
        { name: "Read", id: "toolu_1", input: { file_path: path.join(cwd, "linked", "f.txt") } },
      ]),
      reply.text("done"),
    );
    await collect(query({ prompt: "hi", options: options({ settingSources: ["project"] }) }));
    expect(messagesOf(1)).toContain("data");
    expect(messagesOf(1)).not.toContain("OUTSIDE-MEMORY");
  });

  it("without settingSources a custom prompt reads no memory and a Read adds none", async () => {
    write(path.join(cwd, "src", "CLAUDE.md"), "NESTED-MEMORY");
    write(path.join(cwd, "src", "a.ts"), "x\n");
    model.enqueue(
      reply.toolCalls([{ name: "Read", id: "toolu_1", input: { file_path: path.join(cwd, "src", "a.ts") } }]),
      reply.text("done"),
    );
    await collect(query({ prompt: "hi", options: options({ systemPrompt: "MINE" }) }));
    expect(messagesOf(1)).not.toContain("NESTED-MEMORY");
  });
});
