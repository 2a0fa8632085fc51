/**
 * Protected paths: writes to `.git/`, Goat's and Claude Code's settings, `.mcp.json` and shell start-up
 * files ask even in acceptEdits, through the file tools and through Bash, whatever the spelling; a rule
 * naming the file or bypassPermissions lets them through.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CanUseTool,
  type CanUseToolOptions,
  createPermissionEngine,
  type PermissionEngineOptions,
} from "../../src/permissions/index.js";

let root: string;
let project: string;
let home: string;

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-protected-")));
  project = path.join(root, "project");
  home = path.join(root, "home");
  fs.mkdirSync(path.join(project, "sub"), { recursive: true });
  fs.mkdirSync(home);
  execFileSync("git", ["init", "-q", project]);
  fs.writeFileSync(path.join(project, "evil"), "[core]\n\tfsmonitor = touch pwned\n");
  fs.symlinkSync(path.join(project, ".git"), path.join(project, "gitlink"));
});

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

async function decide(
  toolName: string,
  input: Record<string, unknown>,
  options: Partial<PermissionEngineOptions> = {},
): Promise<{ outcome: string; asked?: CanUseToolOptions }> {
  let asked: CanUseToolOptions | undefined;
  const canUseTool: CanUseTool = async (_name, _input, opts) => {
    asked = opts;
    return { behavior: "deny", message: "no" };
  };
  const engine = createPermissionEngine({
    cwd: project,
    mode: "acceptEdits",
    additionalDirectories: [home],
    canUseTool,
    ...options,
  });
  const d = await engine.decide({
    toolName,
    input,
    sideEffect: "mutating",
    toolUseID: "t",
    signal: new AbortController().signal,
  });
  return { outcome: asked ? "ask" : d.behavior, asked };
}

const write = (file: string) => ({ file_path: path.resolve(project, file), content: "x" });

describe("file tools in acceptEdits", () => {
  it.each([
    ".git/config",
    ".git/hooks/pre-commit",
    ".GIT/config",
    "sub/.git/config",
    "gitlink/config",
    ".goat/settings.json",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".mcp.json",
    ".bashrc",
    ".vscode/tasks.json",
  ])("Write to %s asks and suggests a rule naming the file", async (file) => {
    const { outcome, asked } = await decide("Write", write(file));
    expect(outcome).toBe("ask");
    expect(asked?.decisionReason).toContain("protected");
    expect(asked?.suggestions?.[0]).toMatchObject({ type: "addRules", rules: [{ toolName: "Edit" }] });
  });

  it.each([
    ".bashrc",
    ".profile",
    ".zshrc",
    ".bash_profile",
    ".gitconfig",
    ".config/git/config",
    ".config/fish/config.fish",
  ])("Write to ~/%s asks even with the home directory in scope", async (file) => {
    expect((await decide("Write", { file_path: path.join(home, file), content: "x" })).outcome).toBe("ask");
  });

  it("Edit and NotebookEdit ask too; an ordinary file does not", async () => {
    expect(
      (await decide("Edit", { ...write(".git/config"), old_string: "a", new_string: "b" })).outcome,
    ).toBe("ask");
    expect(
      (await decide("NotebookEdit", { notebook_path: path.join(project, ".claude", "n.ipynb") })).outcome,
    ).toBe("ask");
    expect((await decide("Write", write("src/ok.ts"))).outcome).toBe("allow");
  });

  it("a bare Write rule does not cover them; a rule naming the file, or bypassPermissions, does", async () => {
    expect((await decide("Write", write(".mcp.json"), { allowedTools: ["Write"] })).outcome).toBe("ask");
    const named = [`Edit(/${path.join(project, ".mcp.json")})`];
    expect((await decide("Write", write(".mcp.json"), { allowedTools: named })).outcome).toBe("allow");
    expect((await decide("Write", write(".git/config"), { mode: "bypassPermissions" })).outcome).toBe(
      "allow",
    );
  });
});

describe("Bash writes in acceptEdits", () => {
  it.each([
    "echo '[core] fsmonitor = id' >> .git/config",
    "cp evil .git/config",
    "cp evil .git",
    "mv evil .git/hooks/pre-commit",
    "touch .mcp.json",
    "rm -rf .git",
    "sed -i 's/a/b/' .git/config",
    "mkdir -p .claude/commands",
    "cat evil > gitlink/config",
    "cd sub && touch ../.goat/settings.json",
  ])("%s asks", async (command) => {
    expect((await decide("Bash", { command })).outcome).toBe("ask");
  });

  it("an ordinary write still runs", async () => {
    expect((await decide("Bash", { command: "cp evil notes.txt" })).outcome).toBe("allow");
  });
});

describe("the shell start-up file the environment names (BASH_ENV, ENV)", () => {
  const startup = () => [path.join(project, "tools", "env.sh")];

  it("writing it asks in acceptEdits, through the file tools and Bash, however it is reached", async () => {
    const opts = { shellStartupFiles: startup() };
    expect((await decide("Write", write("tools/env.sh"), opts)).outcome).toBe("ask");
    expect((await decide("Write", write("sub/../tools/env.sh"), opts)).asked?.decisionReason).toContain(
      "BASH_ENV",
    );
    expect((await decide("Bash", { command: "echo 'touch pwned' >> tools/env.sh" }, opts)).outcome).toBe(
      "ask",
    );
    expect((await decide("Write", write("tools/env.sh"), { allowedTools: ["Write"], ...opts })).outcome).toBe(
      "ask",
    );
  });

  it("a link to it asks too; other files and sessions without the variable are unaffected", async () => {
    fs.mkdirSync(path.join(project, "tools"), { recursive: true });
    fs.writeFileSync(path.join(project, "tools", "env.sh"), "# setup\n");
    fs.symlinkSync(path.join(project, "tools", "env.sh"), path.join(project, "envlink"));
    const opts = { shellStartupFiles: startup() };
    expect((await decide("Write", write("envlink"), opts)).outcome).toBe("ask");
    expect((await decide("Write", write("tools/other.sh"), opts)).outcome).toBe("allow");
    expect((await decide("Write", write("tools/env.sh"))).outcome).toBe("allow");
  });
});
