/** The Bash tool in the foreground, on real processes: output, exit codes, timeouts, aborts, floods. */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bashTool } from "../../src/tools/bash.js";
import { runTool } from "../../src/tools/define-tool.js";
import {
  becomesDead,
  createTestSession,
  groupBecomesDead,
  readPid,
  type TestSession,
  textOf,
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

describe("Bash", () => {
  it("exposes Claude Code's input fields with command required", () => {
    const schema = bashTool.jsonSchema as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(schema.properties).sort()).toEqual([
      "command",
      "description",
      "run_in_background",
      "timeout",
    ]);
    expect(schema.required).toEqual(["command"]);
    expect(bashTool.sideEffect).toBe("mutating");
  });

  it("returns the output of a successful command without an exit code", async () => {
    const s = session();
    const result = await runTool(bashTool, { command: "echo hello" }, s.ctx);
    expect(result.isError).toBe(false);
    expect(textOf(result.content)).toBe("hello");
    expect(result.details).toMatchObject({ exitCode: 0, signal: null, timedOut: false, interrupted: false });
  });

  it("interleaves stderr with stdout in the order they were written", async () => {
    const s = session();
    const result = await runTool(bashTool, { command: "echo a; echo b >&2; echo c; echo d >&2" }, s.ctx);
    expect(textOf(result.content)).toBe("a\nb\nc\nd");
  });

  it("reports a non-zero exit code as an error with the output", async () => {
    const s = session();
    const result = await runTool(bashTool, { command: "echo oops >&2; exit 3" }, s.ctx);
    expect(result.isError).toBe(true);
    expect(textOf(result.content)).toBe("oops\n\nExit code 3");
    expect(result.details).toMatchObject({ exitCode: 3 });
  });

  it("says briefly that a command printed nothing", async () => {
    const s = session();
    const result = await runTool(bashTool, { command: "true" }, s.ctx);
    expect(textOf(result.content)).toBe("(no output)");
    expect(result.isError).toBe(false);
  });

  it("runs in the session's working directory", async () => {
    const s = session();
    const result = await runTool(bashTool, { command: "pwd; echo data > made.txt" }, s.ctx);
    expect(textOf(result.content)).toBe(s.dir);
    expect(fs.readFileSync(path.join(s.dir, "made.txt"), "utf8")).toBe("data\n");
  });

  it("gives a clear error when the working directory does not exist", async () => {
    const s = session();
    const ctx = { ...s.ctx, cwd: path.join(s.dir, "gone") };
    const result = await runTool(bashTool, { command: "echo hi" }, ctx);
    expect(result.isError).toBe(true);
    expect(textOf(result.content)).toContain("does not exist");
  });

  it("on timeout kills the whole process group, grandchildren included, and keeps the output so far", async () => {
    const s = session();
    const command =
      "echo $$ > leader.pid; sleep 100 & echo $! > child.pid; (sleep 100; echo never) & echo $! > sub.pid; echo started; sleep 100";
    const t0 = Date.now();
    const result = await runTool(bashTool, { command, timeout: 800 }, s.ctx);
    expect(Date.now() - t0).toBeLessThan(6000);
    const text = textOf(result.content);
    expect(result.isError).toBe(true);
    expect(text).toContain("started");
    expect(text).toContain("timed out after 800 ms");
    expect(result.details).toMatchObject({ timedOut: true, interrupted: false });
    const pids = await Promise.all(
      ["leader", "child", "sub"].map((n) => readPid(path.join(s.dir, `${n}.pid`))),
    );
    for (const pid of pids) expect(await becomesDead(pid)).toBe(true);
    // The group also held the subshell's own sleep, killed by the same signal but not waited on above.
    expect(await groupBecomesDead(pids[0])).toBe(true);
  });

  it("escalates to SIGKILL when the command ignores SIGTERM", async () => {
    const s = session();
    const command = "trap '' TERM; sleep 100 & echo $! > child.pid; echo $$ > leader.pid; wait";
    const result = await runTool(bashTool, { command, timeout: 500 }, s.ctx);
    expect(result.details).toMatchObject({ timedOut: true });
    for (const name of ["leader", "child"]) {
      expect(await becomesDead(await readPid(path.join(s.dir, `${name}.pid`)))).toBe(true);
    }
  });

  it("returns promptly when aborted mid-run and kills the group", async () => {
    const s = session();
    const command = "sleep 100 & echo $! > child.pid; echo $$ > leader.pid; echo working; wait";
    const pending = runTool(bashTool, { command }, s.ctx);
    const child = await readPid(path.join(s.dir, "child.pid"));
    const leader = await readPid(path.join(s.dir, "leader.pid"));
    const t0 = Date.now();
    s.controller.abort();
    const result = await pending;
    // Target is ~300 ms; the margin is for a loaded two-core machine.
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(result.isError).toBe(true);
    expect(textOf(result.content)).toContain("interrupted");
    expect(result.details).toMatchObject({ interrupted: true, timedOut: false });
    expect(await becomesDead(child)).toBe(true);
    expect(await becomesDead(leader)).toBe(true);
  });

  it("does not start a command when the signal is already aborted", async () => {
    const s = session();
    s.controller.abort();
    const result = await runTool(bashTool, { command: "touch ran" }, s.ctx);
    expect(result.isError).toBe(true);
    expect(fs.existsSync(path.join(s.dir, "ran"))).toBe(false);
  });

  it("stops processes a command leaves holding its output instead of hanging until the timeout", async () => {
    const s = session();
    const t0 = Date.now();
    const result = await runTool(bashTool, { command: "sleep 100 & echo $! > bg.pid; echo done" }, s.ctx);
    expect(Date.now() - t0).toBeLessThan(5000);
    const text = textOf(result.content);
    expect(text).toMatch(/^done\n/);
    expect(text).toContain("left running in the background were stopped");
    expect(await becomesDead(await readPid(path.join(s.dir, "bg.pid")))).toBe(true);
  });

  it("cuts a 50 MB flood to head and tail, saves all of it to a file, and stays within bounded memory", async () => {
    const s = session();
    const before = process.memoryUsage();
    let peak = 0;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      peak = Math.max(peak, m.heapUsed + m.arrayBuffers - before.heapUsed - before.arrayBuffers);
    }, 20);
    const result = await runTool(bashTool, { command: "yes | head -c 50000000; echo END" }, s.ctx);
    clearInterval(sampler);
    const text = textOf(result.content);
    const details = result.details as { outputFile: string; truncated: boolean; totalBytes: number };
    expect(result.isError).toBe(false);
    expect(details.truncated).toBe(true);
    expect(details.totalBytes).toBe(50_000_004);
    expect(text.length).toBeLessThan(31_000);
    expect(text.startsWith("y\ny\n")).toBe(true);
    expect(text).toMatch(/characters truncated/);
    expect(text).toContain("y\nEND\n\nOutput was too long");
    expect(text).toContain(details.outputFile);
    expect(fs.statSync(details.outputFile).size).toBe(50_000_004);
    // Holding the flood would cost ~100 MB (string plus buffers); the collector keeps ~60 KB.
    expect(peak).toBeLessThan(40 * 1024 * 1024);
  });

  it("removes saved output files when the session ends", async () => {
    const s = session();
    const result = await runTool(bashTool, { command: "seq 1 20000" }, s.ctx);
    const file = (result.details as { outputFile: string }).outputFile;
    expect(fs.existsSync(file)).toBe(true);
    await s.dispose();
    expect(fs.existsSync(file)).toBe(false);
  });

  it("survives output that is not valid UTF-8", async () => {
    const s = session();
    const result = await runTool(bashTool, { command: "printf 'a\\xff\\xfeb \\xc3\\x28 ok\\n'" }, s.ctx);
    expect(result.isError).toBe(false);
    expect(textOf(result.content)).toBe("a\uFFFD\uFFFDb \uFFFD( ok");
  });

  it("streams new output through onUpdate while the command runs, throttled", async () => {
    const s = session();
    let firstUpdateAt = 0;
    s.ctx.onUpdate = (partial) => {
      firstUpdateAt ||= Date.now();
      s.updates.push(partial);
    };
    const result = await runTool(
      bashTool,
      { command: "echo first; sleep 0.6; for i in $(seq 1 5000); do echo line $i; done" },
      s.ctx,
    );
    const endedAt = Date.now();
    expect(s.updates[0]).toBe("first\n");
    expect(endedAt - firstUpdateAt).toBeGreaterThan(300);
    expect(s.updates.join("")).toContain("line 5000\n");
    expect(s.updates.length).toBeLessThan(50);
    expect(textOf(result.content)).toContain("line 5000");
  });

  it("rejects a missing command and an over-long timeout before running anything", async () => {
    const s = session();
    const missing = await runTool(bashTool, { timeout: 1000 }, s.ctx);
    expect(missing.isError).toBe(true);
    expect(textOf(missing.content)).toMatch(/command: .*(expected string|received undefined)/i);
    const tooLong = await runTool(bashTool, { command: "touch ran", timeout: 700_000 }, s.ctx);
    expect(tooLong.isError).toBe(true);
    expect(textOf(tooLong.content)).toMatch(/timeout: .*600000/);
    expect(fs.existsSync(path.join(s.dir, "ran"))).toBe(false);
  });
});
