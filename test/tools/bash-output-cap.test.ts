/**
 * The byte cap on a command's output: a flood (`seq inf`, `yes`, `cat /dev/zero`) is stopped once it
 * passes the cap, foreground or background, and the spill file never grows past it.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { getBackgroundShell } from "../../src/tools/background-shells.js";
import { bashTool } from "../../src/tools/bash.js";
import { bashOutputTool } from "../../src/tools/bash-output.js";
import {
  createOutputCollector,
  DEFAULT_MAX_OUTPUT_BYTES,
  maxOutputBytesFrom,
} from "../../src/tools/command-output.js";
import { runTool } from "../../src/tools/define-tool.js";
import {
  createTestSession,
  groupBecomesDead,
  type TestSession,
  textOf,
  waitFor,
} from "./bash-test-context.js";

const CAP = 1024 * 1024;

let sessions: TestSession[] = [];
/** A session whose commands run with the cap set to 1 MiB through the environment. */
function cappedSession(): TestSession {
  const s = createTestSession();
  s.ctx.env = { ...process.env, GOAT_BASH_MAX_OUTPUT_BYTES: String(CAP) };
  sessions.push(s);
  return s;
}
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(sessions.map((s) => s.dispose()));
  sessions = [];
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe("output byte cap", () => {
  it("reads the cap from GOAT_BASH_MAX_OUTPUT_BYTES, else 64 MiB", () => {
    expect(DEFAULT_MAX_OUTPUT_BYTES).toBe(64 * 1024 * 1024);
    expect(maxOutputBytesFrom({})).toBe(DEFAULT_MAX_OUTPUT_BYTES);
    expect(maxOutputBytesFrom({ GOAT_BASH_MAX_OUTPUT_BYTES: "5000000" })).toBe(5_000_000);
    expect(maxOutputBytesFrom({ GOAT_BASH_MAX_OUTPUT_BYTES: "-1" })).toBe(DEFAULT_MAX_OUTPUT_BYTES);
    expect(maxOutputBytesFrom({ GOAT_BASH_MAX_OUTPUT_BYTES: "lots" })).toBe(DEFAULT_MAX_OUTPUT_BYTES);
  });

  it("the collector saves no byte past the cap and says the producer must stop", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "goat-cap-test-"));
    dirs.push(dir);
    const file = path.join(dir, "out.log");
    const collector = createOutputCollector(() => file, 100, 10_000);
    const chunk = Buffer.alloc(3000, "z");
    for (let i = 0; i < 3; i++) collector.push(chunk);
    expect(collector.overCap).toBe(false);
    collector.push(chunk);
    expect(collector.overCap).toBe(true);
    collector.push(chunk);
    const out = collector.finish();
    expect(fs.statSync(file).size).toBe(10_000);
    expect(out).toMatchObject({ capBytes: 10_000, totalBytes: 15_000 });
    expect(out.text.length).toBeLessThan(300);
  });

  it.each(["seq inf", "cat /dev/zero", "yes"])(
    "stops `%s` in the foreground once its output passes the cap",
    async (command) => {
      const s = cappedSession();
      const started = Date.now();
      const result = await runTool(bashTool, { command: `echo $$ > shell.pid; ${command}` }, s.ctx);
      const text = textOf(result.content);
      const details = result.details as { outputFile: string; outputCapped: boolean; totalBytes: number };
      expect(result.isError).toBe(true);
      expect(details.outputCapped).toBe(true);
      expect(text).toContain("Output exceeded 1 MiB; the command was stopped");
      expect(text).toContain(details.outputFile);
      // The file holds exactly the cap, not what arrived while the group was being killed.
      expect(fs.statSync(details.outputFile).size).toBe(CAP);
      expect(details.totalBytes).toBeGreaterThan(CAP);
      expect(text.length).toBeLessThan(31_000);
      const pgid = Number(fs.readFileSync(path.join(s.dir, "shell.pid"), "utf8"));
      expect(await groupBecomesDead(pgid)).toBe(true);
      expect(Date.now() - started).toBeLessThan(10_000);
    },
  );

  it("stops a background shell once its output passes the cap, and BashOutput says why", async () => {
    const s = cappedSession();
    const started = await runTool(bashTool, { command: "yes", run_in_background: true }, s.ctx);
    const id = (started.details as { backgroundShellId: string }).backgroundShellId;
    const shell = getBackgroundShell(s.ctx.state, id)!;
    await waitFor(() => shell.status === "killed", "the flooding shell to be stopped", 10_000);
    await shell.done;
    expect(await groupBecomesDead(shell.pgid!)).toBe(true);
    // What arrived between passing the cap and the kill is a few pipe buffers, not an unbounded stream.
    expect(shell.totalChars).toBeLessThan(CAP * 4);
    const read = textOf((await runTool(bashOutputTool, { bash_id: id }, s.ctx)).content);
    expect(read).toContain("<status>killed (output exceeded 1 MiB; the command was stopped)</status>");
  });
});
