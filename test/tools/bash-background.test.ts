/** Background shells on real processes: Bash run_in_background, BashOutput, KillShell, session cleanup. */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { getBackgroundShell, startBackgroundShell } from "../../src/tools/background-shells.js";
import { bashTool } from "../../src/tools/bash.js";
import { bashOutputTool } from "../../src/tools/bash-output.js";
import { runTool } from "../../src/tools/define-tool.js";
import { killShellTool } from "../../src/tools/kill-shell.js";
import {
  becomesDead,
  createTestSession,
  readPid,
  type TestSession,
  textOf,
  waitFor,
} from "./bash-test-context.js";

let sessions: TestSession[] = [];
function session(): TestSession {
  const s = createTestSession();
  sessions.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(sessions.map((s) => s.dispose()));
  sessions = [];
});

async function startInBackground(s: TestSession, command: string, extra: object = {}): Promise<string> {
  const result = await runTool(bashTool, { command, run_in_background: true, ...extra }, s.ctx);
  expect(result.isError).toBeFalsy();
  return (result.details as { backgroundShellId: string }).backgroundShellId;
}

async function read(s: TestSession, bash_id: string, filter?: string): Promise<string> {
  return textOf((await runTool(bashOutputTool, { bash_id, filter }, s.ctx)).content);
}

describe("Bash run_in_background", () => {
  it("returns at once with a shell id and how to read it", async () => {
    const s = session();
    const t0 = Date.now();
    const result = await runTool(bashTool, { command: "sleep 100", run_in_background: true }, s.ctx);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(textOf(result.content)).toContain("bash_1");
    expect(textOf(result.content)).toContain("BashOutput");
    expect(result.details).toMatchObject({ backgroundShellId: "bash_1" });
    expect(await startInBackground(s, "sleep 100")).toBe("bash_2");
  });

  it("BashOutput returns only the output produced since the previous read, then the final status", async () => {
    const s = session();
    const id = await startInBackground(
      s,
      "echo first; while [ ! -f go ]; do sleep 0.05; done; echo second >&2; echo third",
    );
    const shell = getBackgroundShell(s.ctx.state, id)!;
    await waitFor(() => shell.unreadChars > 0, "first output");
    const first = await read(s, id);
    expect(first).toContain("<status>running</status>");
    expect(first).toContain("<output>\nfirst\n</output>");

    fs.writeFileSync(path.join(s.dir, "go"), "");
    await shell.done;
    const second = await read(s, id);
    expect(second).toContain("<status>completed (exit code 0)</status>");
    expect(second).toContain("<exit_code>0</exit_code>");
    expect(second).toContain("<output>\nsecond\nthird\n</output>");
    expect(second).not.toContain("first");
    expect(await read(s, id)).toContain("(no new output)");
  });

  it("filter keeps only matching lines and discards the rest", async () => {
    const s = session();
    const id = await startInBackground(s, "printf 'error: a\\ninfo: b\\nerror: c\\n'");
    await getBackgroundShell(s.ctx.state, id)!.done;
    const filtered = await read(s, id, "^error");
    expect(filtered).toContain("<output>\nerror: a\nerror: c\n</output>");
    expect(filtered).not.toContain("info");
    expect(await read(s, id)).toContain("(no new output)");
  });

  it("while the shell runs, filter leaves a partial last line for the next read", async () => {
    const s = session();
    const id = await startInBackground(
      s,
      "printf 'error: one\\nerror: par'; while [ ! -f go ]; do sleep 0.05; done; printf 'tial\\ninfo\\n'",
    );
    const shell = getBackgroundShell(s.ctx.state, id)!;
    await waitFor(() => shell.unread.join("").includes("par"), "partial line");
    const early = await read(s, id, "^error");
    expect(early).toContain("<output>\nerror: one\n</output>");
    fs.writeFileSync(path.join(s.dir, "go"), "");
    await shell.done;
    expect(await read(s, id, "partial$")).toContain("<output>\nerror: partial\n</output>");
  });

  it("an invalid filter is an error that consumes nothing", async () => {
    const s = session();
    const id = await startInBackground(s, "echo kept");
    await getBackgroundShell(s.ctx.state, id)!.done;
    const bad = await runTool(bashOutputTool, { bash_id: id, filter: "([" }, s.ctx);
    expect(bad.isError).toBe(true);
    expect(textOf(bad.content)).toContain("Invalid filter regex");
    expect(await read(s, id)).toContain("kept");
  });

  it("reports a failed exit code after the shell ends", async () => {
    const s = session();
    const id = await startInBackground(s, "echo bye; exit 4");
    await getBackgroundShell(s.ctx.state, id)!.done;
    const text = await read(s, id);
    expect(text).toContain("<status>failed (exit code 4)</status>");
    expect(text).toContain("bye");
  });

  it("KillShell stops the shell's whole process group and the status says killed", async () => {
    const s = session();
    const id = await startInBackground(s, "sleep 100 & echo $! > child.pid; echo $$ > leader.pid; wait");
    const child = await readPid(path.join(s.dir, "child.pid"));
    const leader = await readPid(path.join(s.dir, "leader.pid"));
    const killed = await runTool(killShellTool, { shell_id: id }, s.ctx);
    expect(killed.isError).toBeFalsy();
    expect(textOf(killed.content)).toContain(`Successfully killed shell: ${id}`);
    expect(await becomesDead(child)).toBe(true);
    expect(await becomesDead(leader)).toBe(true);
    expect(await read(s, id)).toContain("<status>killed</status>");
    const again = await runTool(killShellTool, { shell_id: id }, s.ctx);
    expect(again.isError).toBe(true);
    expect(textOf(again.content)).toContain("not running");
  });

  it("a background timeout stops the shell", async () => {
    const s = session();
    const id = await startInBackground(s, "echo $$ > leader.pid; sleep 100", { timeout: 300 });
    const leader = await readPid(path.join(s.dir, "leader.pid"));
    expect(await becomesDead(leader)).toBe(true);
    await waitFor(() => getBackgroundShell(s.ctx.state, id)!.status === "killed", "killed status");
    expect(await read(s, id)).toContain("timeout");
  });

  it("ending the session kills its background shells and their children", async () => {
    const s = session();
    await startInBackground(s, "sleep 100 & echo $! > child.pid; echo $$ > leader.pid; wait");
    await startInBackground(s, "echo $$ > other.pid; sleep 100");
    const pids = await Promise.all(
      ["child", "leader", "other"].map((n) => readPid(path.join(s.dir, `${n}.pid`))),
    );
    await s.dispose();
    for (const pid of pids) expect(await becomesDead(pid)).toBe(true);
  });

  it("keeps only the newest output when the buffer fills and says how much was dropped", async () => {
    const s = session();
    const shell = startBackgroundShell(s.ctx.state, {
      command: "seq 1 10000",
      cwd: s.dir,
      maxBufferChars: 1000,
    });
    await shell.done;
    const text = await read(s, shell.id);
    expect(text).toMatch(/<note>47,894 characters of older output were dropped/);
    expect(text).toContain("\n10000\n</output>");
    expect(text).not.toContain("\n1\n");
  });

  it("unknown ids are errors that list the shells that exist, and sessions never see each other's shells", async () => {
    const a = session();
    const b = session();
    const id = await startInBackground(a, "sleep 100");
    const missing = await runTool(bashOutputTool, { bash_id: "bash_9" }, a.ctx);
    expect(missing.isError).toBe(true);
    expect(textOf(missing.content)).toContain(`Known shells: ${id}`);
    const other = await runTool(bashOutputTool, { bash_id: id }, b.ctx);
    expect(other.isError).toBe(true);
    expect(textOf(other.content)).toContain("No background shells have been started");
    const kill = await runTool(killShellTool, { shell_id: id }, b.ctx);
    expect(kill.isError).toBe(true);
  });

  it("BashOutput and KillShell reject missing ids before running", async () => {
    const s = session();
    const out = await runTool(bashOutputTool, {}, s.ctx);
    expect(out.isError).toBe(true);
    expect(textOf(out.content)).toContain("bash_id");
    const kill = await runTool(killShellTool, { shell_id: 3 }, s.ctx);
    expect(kill.isError).toBe(true);
    expect(textOf(kill.content)).toContain("shell_id");
    expect(bashOutputTool.sideEffect).toBe("none");
    expect(killShellTool.sideEffect).toBe("mutating");
  });
});
