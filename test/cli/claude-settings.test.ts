/**
 * `goat -p` in a folder prepared for Claude Code: its `.claude/settings.json` deny rules hold whether
 * or not the folder is trusted; its allow rules apply only once it is trusted (one stderr line says
 * what was left out until then); a malformed Claude file is one warning naming it.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { reply } from "../support/mock-provider.js";
import { runCli, trustWorkFolder, useCliFixture } from "./helpers.js";

const fx = useCliFixture("goat-claude-settings");
const run = (args: string[]) => runCli(args, { env: fx.env, cwd: fx.work.path });
const toolResultsOf = (body: any) =>
  body.messages.flatMap((m: any) =>
    Array.isArray(m.content) ? m.content.filter((b: any) => b.type === "tool_result") : [],
  );

function writeClaude(file: string, json: unknown) {
  mkdirSync(join(fx.work.path, ".claude"), { recursive: true });
  writeFileSync(join(fx.work.path, ".claude", file), typeof json === "string" ? json : JSON.stringify(json));
}

describe("a Claude Code project's settings under goat -p", () => {
  it("an untrusted folder's deny rules hold and its allow rules do not, with one line on stderr; trusted, the allow rules apply", async () => {
    writeClaude("settings.json", {
      permissions: { deny: ["Bash(rm:*)", "Read(./secret.txt)"], allow: ["Bash(touch:*)"] },
      // A command over two lines must not break the notice into two.
      hooks: { SessionStart: [{ hooks: [{ type: "command", command: "true\ntrue" }] }] },
    });
    writeFileSync(join(fx.work.path, "secret.txt"), "the launch code");
    writeFileSync(join(fx.work.path, "victim.txt"), "keep me");
    const calls = () =>
      reply.toolCalls([
        { name: "Bash", input: { command: "rm victim.txt" }, id: "b1" },
        { name: "Read", input: { file_path: join(fx.work.path, "secret.txt") }, id: "r1" },
        { name: "Bash", input: { command: "touch made.txt" }, id: "b2" },
      ]);
    fx.mock.enqueue(calls(), reply.text("untrusted"));
    const r = await run(["-p", "go"]);
    expect(r.code).toBe(0);
    // Print mode says each denial on a line of its own (three here); the trust notice is one line.
    const lines = notices(r.stderr);
    expect(denials(r.stderr)).toHaveLength(3);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`goat: ${fx.work.path} is not a trusted folder: left out`);
    expect(lines[0]).toContain("allow rule Bash(touch:*) (.claude/settings.json)");
    expect(lines[0]).toContain("hook SessionStart: true\\ntrue (.claude/settings.json)");
    const [rm, read, touch] = toolResultsOf(fx.mock.requests[1].body);
    expect(JSON.stringify(rm.content)).toMatch(/denied by the rule Bash\(rm:\*\)/);
    expect(JSON.stringify(read.content)).toMatch(/denied by the rule Read\(\.\/secret\.txt\)/);
    expect(touch.is_error).toBe(true); // not allowed, and -p has no one to ask
    expect(existsSync(join(fx.work.path, "victim.txt"))).toBe(true);
    expect(existsSync(join(fx.work.path, "made.txt"))).toBe(false);

    trustWorkFolder(fx);
    fx.mock.enqueue(calls(), reply.text("trusted"));
    const t = await run(["-p", "go"]);
    expect(notices(t.stderr)).toEqual([]);
    expect(denials(t.stderr)).toHaveLength(2);
    const [rm2, read2, touch2] = toolResultsOf(fx.mock.requests[3].body);
    expect(JSON.stringify(rm2.content)).toMatch(/denied by the rule Bash\(rm:\*\)/);
    expect(JSON.stringify(read2.content)).toMatch(/denied by the rule Read/);
    expect(touch2.is_error).toBeFalsy();
    expect(existsSync(join(fx.work.path, "victim.txt"))).toBe(true);
    expect(existsSync(join(fx.work.path, "made.txt"))).toBe(true);
  });

  it("a deny rule in the user's ~/.claude (CLAUDE_CONFIG_DIR) holds; the project's local file wins its model over the project file", async () => {
    mkdirSync(fx.env.CLAUDE_CONFIG_DIR, { recursive: true });
    writeFileSync(
      join(fx.env.CLAUDE_CONFIG_DIR, "settings.json"),
      JSON.stringify({ permissions: { deny: ["Bash(rm:*)"] }, model: "anthropic/claude-sonnet-4-5" }),
    );
    writeClaude("settings.json", { model: "anthropic/claude-opus-4-5" });
    writeClaude("settings.local.json", { model: "anthropic/claude-haiku-4-5" });
    writeFileSync(join(fx.work.path, "victim.txt"), "keep me");
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: "rm victim.txt" }, id: "b1" }]),
      reply.text("done"),
    );
    const r = await run(["-p", "go", "--permission-mode", "bypassPermissions"]);
    expect(notices(r.stderr)).toEqual([]); // a model and deny rules need no trust
    expect(denials(r.stderr)).toHaveLength(1);
    expect(fx.mock.requests[0].body.model).toBe("claude-haiku-4-5");
    expect(JSON.stringify(toolResultsOf(fx.mock.requests[1].body)[0].content)).toMatch(
      /denied by the rule Bash\(rm:\*\)/,
    );
    expect(existsSync(join(fx.work.path, "victim.txt"))).toBe(true);
  });

  it("a malformed .claude/settings.json is one warning naming the file; the local file's deny rule still holds", async () => {
    writeClaude("settings.json", '{ "permissions": { "allow": [');
    writeClaude("settings.local.json", { permissions: { deny: ["Bash(rm:*)"] } });
    writeFileSync(join(fx.work.path, "victim.txt"), "keep me");
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: "rm victim.txt" }, id: "b1" }]),
      reply.text("done"),
    );
    const r = await run(["-p", "go", "--permission-mode", "bypassPermissions"]);
    expect(r.code).toBe(0);
    const lines = notices(r.stderr);
    expect(lines).toHaveLength(1);
    expect(denials(r.stderr)).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^goat: invalid JSON in settings file ${join(fx.work.path, ".claude", "settings.json")}: .*; the file was ignored$`,
      ),
    );
    expect(existsSync(join(fx.work.path, "victim.txt"))).toBe(true);
  });
});

/** The lines of stderr that are not print mode's one line per denied call. */
function notices(stderr: string): string[] {
  return stderr.split("\n").filter((l) => l !== "" && !l.startsWith("goat: denied "));
}

/** Print mode's one line per denied call. */
function denials(stderr: string): string[] {
  return stderr.split("\n").filter((l) => l.startsWith("goat: denied "));
}
