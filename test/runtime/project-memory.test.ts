/**
 * Memory in the project description: the memory files of the levels a session reads (the user's
 * `CLAUDE.md` and rules, the project's `CLAUDE.md` and its kin, `CLAUDE.local.md`, `.claude/rules`),
 * each with its level and its `@path` imports resolved inside the project and its allowed
 * directories, are read into the description once the options are merged, and the session shows
 * that read rather than opening the files again. Before, the description held no memory: the
 * runtime read the files itself at the session's start.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { withProjectDescription } from "../../src/runtime/project-options.js";
import type { QueryOptions } from "../../src/sdk/options.js";
import { query } from "../../src/sdk/query.js";
import { readProjectDescription } from "../../src/settings/project-description.js";
import { type ScriptedModel, scriptedModel } from "../../src/testing/scripted-model.js";
import { reply } from "../support/mock-provider.js";
import { collect, scriptedOptions, tempDir } from "./helpers.js";

let model: ScriptedModel;
let cwd: string;
let extra: string;
let outside: string;
let env: Record<string, string | undefined>;
beforeEach(() => {
  model = scriptedModel();
  cwd = tempDir("goat-project-memory-cwd-");
  extra = tempDir("goat-project-memory-extra-");
  outside = tempDir("goat-project-memory-outside-");
  env = {
    PATH: process.env.PATH,
    HOME: outside,
    CLAUDE_CONFIG_DIR: tempDir("goat-project-memory-claude-"),
    GOAT_HOME: tempDir("goat-project-memory-goat-"),
  };
});

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

function writeMemory(): void {
  write(path.join(env.CLAUDE_CONFIG_DIR!, "CLAUDE.md"), "USER-MEMORY");
  write(path.join(cwd, "CLAUDE.md"), `PROJECT-MEMORY @${extra}/notes.md and @${outside}/secret.md`);
  write(path.join(extra, "notes.md"), "EXTRA-NOTES");
  write(path.join(outside, "secret.md"), "OUTSIDE-SECRET");
  write(path.join(cwd, "CLAUDE.local.md"), "LOCAL-MEMORY");
  write(path.join(cwd, ".claude", "rules", "testing.md"), "PROJECT-RULE");
  write(path.join(cwd, ".claude", "rules", "api.md"), '---\npaths: "src/api/**"\n---\nAPI-RULE');
}

function options(more: QueryOptions = {}): QueryOptions {
  return scriptedOptions(model, { cwd, env, settingSources: ["user", "project", "local"], ...more });
}

describe("memory in the project description", () => {
  it("holds each memory file with its level, imports read inside the allowed directories only", () => {
    writeMemory();
    const description = readProjectDescription({ cwd, env, sources: ["user", "project", "local"] });
    expect(description.memory).toBeUndefined();
    const warnings: string[] = [];
    withProjectDescription(options({ additionalDirectories: [extra] }), description, true, (m) =>
      warnings.push(m),
    );
    const memory = description.memory;
    expect(memory?.files.map((f) => [f.path, f.level, f.importedBy])).toEqual([
      [path.join(env.CLAUDE_CONFIG_DIR!, "CLAUDE.md"), "user", undefined],
      [path.join(cwd, "CLAUDE.md"), "project", undefined],
      [path.join(extra, "notes.md"), "project", path.join(cwd, "CLAUDE.md")],
      [path.join(cwd, "CLAUDE.local.md"), "local", undefined],
      [path.join(cwd, ".claude", "rules", "testing.md"), "project", undefined],
    ]);
    expect(memory?.conditionalRules.map((r) => r.path)).toEqual([
      path.join(cwd, ".claude", "rules", "api.md"),
    ]);
    // The import outside the project and its directories is not read; the warning names the file.
    expect(memory?.files.map((f) => f.content).join("\n")).not.toContain("OUTSIDE-SECRET");
    expect(memory?.warnings).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${path.join(cwd, "CLAUDE.md")}:1: @${outside}/secret.md not imported: .* outside the project`,
        ),
      ),
    ]);
    // The session shows them: the warnings wait for it, the options' own warnings get none.
    expect(warnings).toEqual([]);
  });

  it("follows the levels the options read", () => {
    writeMemory();
    const description = readProjectDescription({ cwd, env, sources: ["project"] });
    withProjectDescription(options({ settingSources: ["project"] }), description, true, () => {});
    expect(description.memory?.files.map((f) => f.level)).toEqual(["project", "project"]);
    const none = readProjectDescription({ cwd, env, sources: ["project"] });
    withProjectDescription(options({ settingSources: ["project"], memorySources: [] }), none, true, () => {});
    expect(none.memory).toBeUndefined();
  });

  it("query() with settingSources: the session shows the files as query() read them, the outside import warned of once", async () => {
    writeMemory();
    model.enqueue(reply.text("ok"));
    const run = query({ prompt: "hi", options: options({ additionalDirectories: [extra] }) });
    // The files change after query() read them: the session goes on with what was read.
    write(path.join(cwd, "CLAUDE.md"), "EDITED-AFTER-THE-READ");
    write(path.join(extra, "notes.md"), "EDITED-NOTES");
    const messages = await collect(run);
    const system = systemOf(0);
    for (const text of ["USER-MEMORY", "PROJECT-MEMORY", "EXTRA-NOTES", "LOCAL-MEMORY", "PROJECT-RULE"]) {
      expect(system).toContain(text);
    }
    expect(system).not.toContain("EDITED");
    expect(system).not.toContain("OUTSIDE-SECRET");
    const shown = messages.flatMap((m) =>
      m.type === "system" && m.subtype === "informational" ? [String(m.content)] : [],
    );
    expect(shown.filter((w) => w.includes("secret.md") && w.includes("outside the project"))).toHaveLength(1);
  });

  it("the first session from the options shows the read; a later one, or one whose directories differ, reads its own", async () => {
    writeMemory();
    const description = readProjectDescription({ cwd, env, sources: ["user", "project", "local"] });
    // As the goat command builds them: the levels in memorySources, the settings already merged.
    const own: QueryOptions = { settingSources: undefined, memorySources: ["user", "project", "local"] };
    const built = withProjectDescription(options(own), description, true, () => {});
    write(path.join(cwd, "CLAUDE.md"), `EDITED-AFTER-THE-READ @${extra}/notes.md`);
    model.enqueue(reply.text("ok"), reply.text("ok"), reply.text("ok"));
    // A host adds a directory after the read: that session reads its own (the import into it too).
    await collect(query({ prompt: "hi", options: { ...built, additionalDirectories: [extra] } }));
    expect(systemOf(0)).toContain("EXTRA-NOTES");
    expect(systemOf(0)).toContain("EDITED-AFTER-THE-READ");
    await collect(query({ prompt: "hi", options: built }));
    expect(systemOf(1)).toContain("PROJECT-MEMORY");
    expect(systemOf(1)).not.toContain("EDITED");
    // A second session from the same options (as after /clear) reads the files as they are then.
    await collect(query({ prompt: "hi", options: built }));
    expect(systemOf(2)).toContain("EDITED-AFTER-THE-READ");
  });
});

/** The system prompt of request `i`. */
function systemOf(i: number): string {
  return JSON.stringify(model.requests[i].system ?? "");
}
