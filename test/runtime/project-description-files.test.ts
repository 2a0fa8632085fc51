/**
 * The project description holds the configuration files as read: each settings file of the levels
 * asked for with its family (Claude Code's, Goat's) and level, and the folder's `.mcp.json`. The
 * trust question and the settings merge use those reads: a file is read once per start, so what
 * the question showed is what the session applies, even when the file changes in between. A file
 * that is not JSON names its line.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { readProjectConfig } from "../../src/cli/trust/project-config.js";
import { loadSettings, mergeSettings, settingsFiles } from "../../src/settings/files.js";
import { loadMemory } from "../../src/settings/memory-files.js";
import { readProjectDescription } from "../../src/settings/project-description.js";
import { readSettingsFile } from "../../src/settings/source-files.js";
import { tempDir } from "../support/temp-dirs.js";

let cwd: string;
let env: Record<string, string>;
beforeEach(() => {
  cwd = tempDir("goat-description-cwd-");
  env = {
    GOAT_HOME: tempDir("goat-description-home-"),
    CLAUDE_CONFIG_DIR: tempDir("goat-description-claude-"),
  };
});

function write(file: string, json: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof json === "string" ? json : JSON.stringify(json));
}

describe("the settings files in the project description", () => {
  it("each file of each level, lowest first, with its family and level; .mcp.json with the project", () => {
    write(path.join(env.CLAUDE_CONFIG_DIR, "settings.json"), { permissions: { deny: ["A"] } });
    write(path.join(cwd, ".goat", "settings.local.json"), { permissions: { deny: ["B"] } });
    write(path.join(cwd, ".mcp.json"), { mcpServers: { db: { command: "db-server" } } });
    const description = readProjectDescription({ cwd, env, sources: ["user", "project", "local"] });
    expect(description.settings.map((r) => [r.file, r.family, r.scope, r.missing])).toEqual([
      [path.join(env.CLAUDE_CONFIG_DIR, "settings.json"), "claude", "user", false],
      [path.join(env.GOAT_HOME, "settings.json"), "goat", "user", true],
      [path.join(cwd, ".claude", "settings.json"), "claude", "project", true],
      [path.join(cwd, ".goat", "settings.json"), "goat", "project", true],
      [path.join(cwd, ".claude", "settings.local.json"), "claude", "local", true],
      [path.join(cwd, ".goat", "settings.local.json"), "goat", "local", false],
    ]);
    expect(description.mcpjson?.json).toEqual({ mcpServers: { db: { command: "db-server" } } });
    // Merged from the reads, the same settings as the files read by path.
    const files = settingsFiles(cwd, env);
    const claudeFiles = new Set(
      files.filter((f) => f.includes(".claude") || f.startsWith(env.CLAUDE_CONFIG_DIR)),
    );
    expect(mergeSettings(description.settings)).toEqual(
      loadSettings(files, new Set(), undefined, undefined, undefined, claudeFiles),
    );
    expect(readProjectDescription({ cwd, env, sources: ["user"] }).mcpjson).toBeUndefined();
  });

  it("the trust question and the merge read the description, not the disk again", () => {
    const project = path.join(cwd, ".claude", "settings.json");
    write(project, { permissions: { allow: ["Bash(make:*)"], deny: ["Bash(rm:*)"] } });
    write(path.join(cwd, ".mcp.json"), { mcpServers: { db: { command: "db-server" } } });
    const description = readProjectDescription({ cwd, env, sources: ["user", "project", "local"] });
    // The folder changes after the start read it: the session goes on with what it read (and asked about).
    write(project, { permissions: { allow: ["Bash"] } });
    fs.rmSync(path.join(cwd, ".mcp.json"));
    const config = readProjectConfig(cwd, env, undefined, description);
    expect(config.declaring).toEqual([
      { file: path.join(".claude", "settings.json"), items: ["allow rule Bash(make:*)"] },
    ]);
    expect(config.mcpjsonServers).toEqual([{ name: "db", description: "db-server" }]);
    const merged = mergeSettings(description.settings, { restricted: new Set(config.settingsFiles) });
    expect(merged.permissions.deny).toEqual(["Bash(rm:*)"]);
    expect(merged.permissions.allow).toEqual([]);
  });

  it("a file that is not JSON is a problem naming the file and the line; Claude's is a warning, Goat's an error", () => {
    const claude = path.join(cwd, ".claude", "settings.json");
    const goat = path.join(cwd, ".goat", "settings.json");
    write(claude, '{\n  "permissions": {\n    "deny": ["Bash(rm:*)"],\n  }\n}\n');
    write(goat, { permissions: { deny: ["Read(./secret)"] } });
    const description = readProjectDescription({ cwd, env, sources: ["project"] });
    const merged = mergeSettings(description.settings);
    expect(merged.warnings).toEqual([
      expect.stringMatching(
        new RegExp(
          `^invalid JSON in settings file ${claude}: .*\\(line 4, column 3\\); the file was ignored$`,
        ),
      ),
    ]);
    expect(merged.permissions.deny).toEqual(["Read(./secret)"]);
    write(goat, '{\n"model": "x"\n"verbose": true}');
    expect(() => mergeSettings(readProjectDescription({ cwd, env, sources: ["project"] }).settings)).toThrow(
      /invalid JSON in settings file .*\.goat\/settings\.json: .*\(line 3, column 1\)/,
    );
    expect(readSettingsFile(path.join(cwd, "none.json"), "goat", "flag").problem).toBe(
      `settings file ${path.join(cwd, "none.json")} does not exist`,
    );
  });
});

describe("memory files, read by the settings loader", () => {
  it("each carries the level it was read for; an import carries its importer's", () => {
    write(path.join(env.CLAUDE_CONFIG_DIR, "CLAUDE.md"), "user memory");
    write(path.join(cwd, "CLAUDE.md"), "project memory, see @notes.md");
    write(path.join(cwd, "notes.md"), "imported notes");
    write(path.join(cwd, "CLAUDE.local.md"), "local memory");
    write(path.join(cwd, ".claude", "rules", "style.md"), "a rule");
    const { files } = loadMemory({
      cwd,
      env,
      levels: { user: true, project: true, local: true },
      warn: () => {},
      seen: new Set(),
    });
    expect(files.map((f) => [path.relative(cwd, f.path), f.level])).toEqual([
      [path.relative(cwd, path.join(env.CLAUDE_CONFIG_DIR, "CLAUDE.md")), "user"],
      ["CLAUDE.md", "project"],
      ["notes.md", "project"],
      ["CLAUDE.local.md", "local"],
      [path.join(".claude", "rules", "style.md"), "project"],
    ]);
  });
});
