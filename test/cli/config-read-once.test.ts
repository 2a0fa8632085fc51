/**
 * One loader: `goat -p` reads each configuration file once per start. The project description
 * holds what was read (the settings files of every level, `.mcp.json`, the memory files and their
 * imports), and the trust question, the settings merge, the MCP sources and the session's prompt all
 * take it from there. Before, the trust question read the folder's settings files and `.mcp.json`,
 * and the loaders then read them again.
 *
 * Counted with a preload that logs every `readFileSync` of a settings, MCP or Markdown file the
 * program makes.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { reply } from "../support/mock-provider.js";
import { runCli, trustWorkFolder, useCliFixture } from "./helpers.js";

const fx = useCliFixture("goat-read-once");

const COUNTER = `
const fs = require("node:fs");
const { syncBuiltinESMExports } = require("node:module");
const original = fs.readFileSync;
fs.readFileSync = function (file, ...rest) {
  if (typeof file === "string" && /(settings(\\.local)?\\.json|\\.mcp\\.json|\\.md)$/.test(file)) {
    fs.appendFileSync(process.env.GOAT_TEST_READ_LOG, file + "\\n");
  }
  return original.call(this, file, ...rest);
};
syncBuiltinESMExports();
`;

function writeJson(file: string, json: unknown): void {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, JSON.stringify(json));
}

/** How many times each file was read by one `goat -p` in the work folder. */
async function readsOfOneRun(): Promise<Record<string, number>> {
  const log = join(fx.home.path, "reads.log");
  writeFileSync(log, "");
  const preload = join(fx.home.path, "count-reads.cjs");
  writeFileSync(preload, COUNTER);
  fx.mock.enqueue(reply.text("ok"));
  const run = await runCli(["-p", "hi", "--model", "claude-sonnet-4-5"], {
    env: { ...fx.env, NODE_OPTIONS: `--require ${preload}`, GOAT_TEST_READ_LOG: log },
    cwd: fx.work.path,
    timeoutMs: 30_000,
  });
  expect(run.code, run.stderr).toBe(0);
  const counts: Record<string, number> = {};
  for (const file of readFileSync(log, "utf8").split("\n").filter(Boolean)) {
    counts[file] = (counts[file] ?? 0) + 1;
  }
  return counts;
}

describe("each configuration file is read once per start", () => {
  const files = () => ({
    claude: join(fx.work.path, ".claude", "settings.json"),
    claudeLocal: join(fx.work.path, ".claude", "settings.local.json"),
    goat: join(fx.work.path, ".goat", "settings.json"),
    mcpjson: join(fx.work.path, ".mcp.json"),
    user: join(fx.home.path, "settings.json"),
  });
  // Memory applies whether the folder is trusted or not: the user's, the project's and its import,
  // a rule, the local file.
  const memoryFiles = () => ({
    userMemory: join(fx.home.path, "claude", "CLAUDE.md"),
    projectMemory: join(fx.work.path, "CLAUDE.md"),
    imported: join(fx.work.path, "docs", "notes.md"),
    rule: join(fx.work.path, ".claude", "rules", "style.md"),
    localMemory: join(fx.work.path, "CLAUDE.local.md"),
  });

  function writeMemory(): void {
    const m = memoryFiles();
    for (const file of Object.values(m)) mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(m.userMemory, "User memory.");
    writeFileSync(m.projectMemory, "Project memory, see @docs/notes.md");
    writeFileSync(m.imported, "Notes.");
    writeFileSync(m.rule, "A rule.");
    writeFileSync(m.localMemory, "Local memory.");
  }

  function writeProject(): void {
    const f = files();
    writeJson(f.claude, { permissions: { deny: ["Bash(rm:*)"], allow: ["Bash(ls:*)"] } });
    writeJson(f.claudeLocal, { permissions: { ask: ["Bash(git push:*)"] } });
    writeJson(f.goat, { permissions: { deny: ["Read(./secret)"] } });
    writeJson(f.mcpjson, { mcpServers: { off: { command: "no-such-server-command" } } });
    // The user turned the project's server off: the approvals are read too, and nothing starts.
    writeJson(f.user, { disabledMcpjsonServers: ["off"] });
  }

  it("in a trusted folder", async () => {
    writeProject();
    writeMemory();
    trustWorkFolder(fx);
    const counts = await readsOfOneRun();
    for (const file of Object.values({ ...files(), ...memoryFiles() })) expect(counts[file], file).toBe(1);
  });

  it("in a folder not trusted (read restricted)", async () => {
    writeProject();
    writeMemory();
    const counts = await readsOfOneRun();
    const f = files();
    for (const file of [f.claude, f.claudeLocal, f.goat, f.mcpjson]) expect(counts[file], file).toBe(1);
    for (const file of Object.values(memoryFiles())) expect(counts[file], file).toBe(1);
  });
});
