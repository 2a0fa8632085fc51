import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { HookEvent, SettingsHooks } from "../../src/hooks/index.js";
import { findDescendant } from "../support/processes.js";
import { bashCall, opts, testRunner } from "./support.js";

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "goat-hooks-cmd-"));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A runner whose `event` has one command hook per given command (timeout in seconds). */
function commandRunner(event: HookEvent, commands: string[], timeout?: number, matcher?: string) {
  const settingsHooks: SettingsHooks = {
    [event]: [
      { matcher, hooks: commands.map((command) => ({ type: "command" as const, command, timeout })) },
    ],
  };
  return testRunner({ cwd: dir, settingsHooks, projectDir: "/the/project" });
}

/** True while `pid` runs; a zombie (killed, waiting for init to reap it) counts as dead. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(" ")[2] !== "Z";
  } catch {
    return true;
  }
}

describe("command hooks (real processes)", () => {
  it("receive the event JSON with base fields on stdin, run in the session cwd with the project dir set", async () => {
    const out = path.join(dir, "stdin.json");
    const env = path.join(dir, "env.txt");
    const runner = commandRunner("PreToolUse", [
      `cat > ${out}; printf '%s\\n%s\\n%s\\n' "$PWD" "$GOAT_PROJECT_DIR" "$CLAUDE_PROJECT_DIR" > ${env}`,
    ]);
    const r = await runner.run("PreToolUse", bashCall, opts());
    expect(r.errors).toEqual([]);
    expect(JSON.parse(fs.readFileSync(out, "utf8"))).toEqual({
      session_id: "s1",
      transcript_path: "/tmp/t.jsonl",
      cwd: dir,
      permission_mode: "default",
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "ls" },
      tool_use_id: "tu_1",
    });
    expect(fs.readFileSync(env, "utf8").split("\n").slice(0, 3)).toEqual([
      fs.realpathSync(dir),
      "/the/project",
      "/the/project",
    ]);
  });

  it("exit 0 with JSON stdout is parsed as the output contract", async () => {
    const json = JSON.stringify({
      systemMessage: "checked",
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "ask",
        updatedInput: { command: "ls -la" },
      },
    });
    const runner = commandRunner("PreToolUse", [`echo '${json}'`]);
    const r = await runner.run("PreToolUse", bashCall, opts());
    expect(r.errors).toEqual([]);
    expect(r.permissionDecision).toBe("ask");
    expect(r.updatedInput).toEqual({ command: "ls -la" });
    expect(r.systemMessages).toEqual(["checked"]);
    expect(r.outcomes[0]).toMatchObject({ kind: "command", outcome: "success", exitCode: 0 });
  });

  it("exit 0 with plain text is additional context on UserPromptSubmit and SessionStart, nothing elsewhere", async () => {
    const ups = commandRunner("UserPromptSubmit", ["echo 'Current branch: main'"]);
    expect((await ups.run("UserPromptSubmit", { prompt: "hi" }, opts())).additionalContext).toEqual([
      "Current branch: main",
    ]);
    const start = commandRunner("SessionStart", ["echo 'welcome'"]);
    expect((await start.run("SessionStart", { source: "startup" }, opts())).additionalContext).toEqual([
      "welcome",
    ]);
    const pre = commandRunner("PreToolUse", ["echo 'just logging'"]);
    const r = await pre.run("PreToolUse", bashCall, opts());
    expect(r.additionalContext).toEqual([]);
    expect(r.errors).toEqual([]);
    expect(r.outcomes[0].stdout).toBe("just logging\n");
  });

  it("exit 2 on PreToolUse denies the call with stderr as the reason", async () => {
    const runner = commandRunner("PreToolUse", ["echo 'rm -rf is not allowed' >&2; exit 2"]);
    const r = await runner.run("PreToolUse", bashCall, opts());
    expect(r.permissionDecision).toBe("deny");
    expect(r.permissionDecisionReason).toBe("rm -rf is not allowed");
    expect(r.blocked).toBe(true);
    expect(r.errors).toEqual([]);
    expect(r.outcomes[0].exitCode).toBe(2);
  });

  it("exit 2 on Stop blocks the stop (the loop continues with the reason)", async () => {
    const runner = commandRunner("Stop", ["echo 'tests are still failing' >&2; exit 2"]);
    const r = await runner.run("Stop", { stop_hook_active: false }, opts());
    expect(r.blocked).toBe(true);
    expect(r.blockReason).toBe("tests are still failing");
    expect(r.continue).toBe(true);
  });

  it("exit 2 on UserPromptSubmit blocks the prompt; on PostToolUse it is a reason for the model", async () => {
    const ups = commandRunner("UserPromptSubmit", ["echo 'contains a secret' >&2; exit 2"]);
    const u = await ups.run("UserPromptSubmit", { prompt: "my key is sk-..." }, opts());
    expect(u).toMatchObject({ blocked: true, blockReason: "contains a secret" });
    const post = commandRunner("PostToolUse", ["echo 'lint failed' >&2; exit 2"]);
    const p = await post.run(
      "PostToolUse",
      { tool_name: "Write", tool_input: {}, tool_response: "ok", tool_use_id: "tu_3" },
      opts(),
    );
    expect(p).toMatchObject({ blocked: true, blockReason: "lint failed" });
  });

  it("exit 2 on an event that cannot block shows stderr to the user and ignores stdout", async () => {
    const runner = commandRunner("SessionStart", [
      `echo '{"continue":false}'; echo 'disk almost full' >&2; exit 2`,
    ]);
    const r = await runner.run("SessionStart", { source: "startup" }, opts());
    expect(r).toMatchObject({
      blocked: false,
      continue: true,
      systemMessages: ["disk almost full"],
      errors: [],
    });
  });

  it("a command that cannot start (missing cwd) is reported, not thrown", async () => {
    const runner = testRunner({
      cwd: path.join(dir, "does-not-exist"),
      settingsHooks: { Stop: [{ hooks: [{ type: "command", command: "true" }] }] },
    });
    const r = await runner.run("Stop", { stop_hook_active: false }, opts());
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0].message).toMatch(/could not start in .*does-not-exist/);
  });

  it("exit 1 is a non-blocking error reported with stderr", async () => {
    const runner = commandRunner("PreToolUse", ["echo 'jq: not found' >&2; exit 1"]);
    const r = await runner.run("PreToolUse", bashCall, opts());
    expect(r.blocked).toBe(false);
    expect(r.permissionDecision).toBeUndefined();
    expect(r.errors).toEqual([
      {
        hook: "echo 'jq: not found' >&2; exit 1",
        event: "PreToolUse",
        message: "exited with code 1: jq: not found",
      },
    ]);
    expect(r.outcomes[0]).toMatchObject({ outcome: "error", exitCode: 1, stderr: "jq: not found\n" });
  });

  it("garbage stdout that looks like JSON is reported and ignored", async () => {
    const runner = commandRunner("PreToolUse", ["echo '{\"permissionDecision\": deny'"]);
    const r = await runner.run("PreToolUse", bashCall, opts());
    expect(r.permissionDecision).toBeUndefined();
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0].message).toMatch(/stdout is not valid JSON/);
  });

  it("a command past its timeout is killed with its whole process group", async () => {
    const pidFile = path.join(dir, "bg.pid");
    const runner = commandRunner("PreToolUse", [`sleep 30 & echo $! > ${pidFile}; wait`], 0.5);
    const started = Date.now();
    const r = await runner.run("PreToolUse", bashCall, opts());
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0].message).toBe("timed out after 0.5 s; process group killed");
    const pid = Number(fs.readFileSync(pidFile, "utf8").trim());
    const deadline = Date.now() + 3000;
    while (isAlive(pid) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
    expect(isAlive(pid)).toBe(false);
  });

  it("aborting the run kills running commands and reports them cancelled", async () => {
    const runner = commandRunner("PreToolUse", ["sleep 30"]);
    const controller = new AbortController();
    const running = runner.run("PreToolUse", bashCall, { signal: controller.signal });
    await vi.waitFor(() => expect(findDescendant(process.pid, "sleep 30")).toBeDefined(), {
      timeout: 10_000,
    });
    const started = Date.now();
    controller.abort();
    const r = await running;
    expect(Date.now() - started).toBeLessThan(3000);
    expect(r.outcomes[0].outcome).toBe("cancelled");
  });

  it("commands run in parallel and identical commands run once", async () => {
    const log = path.join(dir, "parallel.log");
    const cmd = (n: number) => `echo start${n} >> ${log}; sleep 0.4; echo end${n} >> ${log}`;
    const runner = testRunner({
      cwd: dir,
      settingsHooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              { type: "command", command: cmd(1) },
              { type: "command", command: cmd(2) },
            ],
          },
          { hooks: [{ type: "command", command: cmd(1) }] },
        ],
      },
    });
    const r = await runner.run("PreToolUse", bashCall, opts());
    expect(r.outcomes).toHaveLength(2);
    const lines = fs.readFileSync(log, "utf8").trim().split("\n");
    expect(lines).toHaveLength(4);
    // Both started before either ended.
    expect(lines.slice(0, 2).sort()).toEqual(["start1", "start2"]);
  });

  it("a command that does not read stdin still works", async () => {
    const runner = commandRunner("PreToolUse", ["exit 0"]);
    const r = await runner.run(
      "PreToolUse",
      { ...bashCall, tool_input: { big: "x".repeat(1_000_000) } },
      opts(),
    );
    expect(r.errors).toEqual([]);
  });

  it("callbacks and commands of one event combine", async () => {
    const runner = testRunner({
      cwd: dir,
      hooks: {
        PreToolUse: [
          { hooks: [async () => ({ hookSpecificOutput: { additionalContext: "from callback" } })] },
        ],
      },
      settingsHooks: {
        PreToolUse: [{ hooks: [{ type: "command", command: `echo '{"systemMessage":"from command"}'` }] }],
      },
    });
    const r = await runner.run("PreToolUse", bashCall, opts());
    expect(r.additionalContext).toEqual(["from callback"]);
    expect(r.systemMessages).toEqual(["from command"]);
    expect(r.outcomes.map((o) => o.kind)).toEqual(["callback", "command"]);
  });
});
