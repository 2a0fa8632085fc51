/**
 * The `goat` command reads a folder's agents, commands and skills once: the description read to
 * settle trust is the one the session applies. So a file changed between the trust question and the
 * start (a checkout, a build step, an attacker racing the prompt) cannot bring in a prompt the
 * question did not name. Before, the files were read once for the question and again to load.
 */
import { mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseCliArgs } from "../../src/cli/args.js";
import { buildConfig } from "../../src/cli/config.js";
import { settleProjectTrust } from "../../src/cli/trust/settle.js";
import { tempDir } from "../support/temp-dirs.js";

let home: string;
let work: string;
let env: Record<string, string | undefined>;
beforeEach(() => {
  home = tempDir("goat-description-home-");
  work = tempDir("goat-description-work-");
  env = { GOAT_HOME: home, CLAUDE_CONFIG_DIR: join(home, "claude"), ANTHROPIC_API_KEY: "test" };
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

function write(file: string, text: string) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

async function settle(sink: string[]) {
  const trust = await settleProjectTrust({
    cwd: work,
    env,
    interactive: false,
    stderr: { write: (text: string) => sink.push(text) },
    openQuestions: () => Promise.reject(new Error("no questions in print mode")),
  });
  if (trust === "quit") throw new Error("quit");
  return trust;
}

describe("one read of the project's definitions", () => {
  it("a trusted folder's agent applies as it was when trust was settled, not as it is later", async () => {
    const agent = join(work, ".claude", "agents", "helper.md");
    write(agent, "---\ndescription: Helps\n---\nSEEN-AT-TRUST\n");
    write(join(home, "trust.json"), JSON.stringify({ trustedFolders: { [realpathSync(work)]: {} } }));
    const trust = await settle([]);
    write(agent, "---\ndescription: Helps\n---\nSWAPPED-AFTER\n");
    write(join(work, ".claude", "commands", "late.md"), "A command written after the question\n");
    const config = buildConfig(parseCliArgs(["-p", "x", "--cwd", work]), env, trust);
    expect(config.options.agents?.helper?.prompt).toBe("SEEN-AT-TRUST");
    expect(Object.keys(config.options.slashCommands ?? {})).toEqual([]);
  });

  it("an untrusted folder: stderr names its agent, the session leaves it out, the user's applies", async () => {
    write(join(work, ".claude", "agents", "helper.md"), "---\ndescription: Helps\n---\nPROJECT\n");
    write(join(home, "claude", "agents", "mine.md"), "---\ndescription: Mine\n---\nUSER\n");
    const stderr: string[] = [];
    const trust = await settle(stderr);
    expect(stderr.join("")).toContain("subagents helper (.claude/agents)");
    const config = buildConfig(parseCliArgs(["-p", "x", "--cwd", work]), env, trust);
    expect(Object.keys(config.options.agents ?? {})).toEqual(["mine"]);
  });
});
