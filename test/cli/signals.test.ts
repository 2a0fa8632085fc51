/**
 * Every way a process manager or a terminal ends `goat` leaves no tool process behind: SIGTERM and
 * SIGHUP during a Bash call whose shell runs `sleep 1000` children interrupt the run, kill the group,
 * flush a transcript whose every tool call has its result, and exit 143 / 129. Stdin closing in
 * stream-json mode finishes the queued work (the Agent SDK's normal end) and still leaves nothing
 * running. A reader that closes stdout early (`| head -1`) ends goat quietly. The processes are
 * checked by the process group the tool's shell recorded, never by name.
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { liveGroupMembers } from "../../src/tools/process-tree.js";
import { reply } from "../support/mock-provider.js";
import { jsonLines, runCli, useCliFixture } from "./helpers.js";

const fx = useCliFixture("goat-signals");

/** Waits until `check` returns a value, polling. */
async function until<T>(check: () => T | undefined, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A Bash command that records its process group and leaves two `sleep 1000` children running. */
function sleeperCommand(pidFile: string): string {
  return `echo $$ > ${pidFile}; sleep 1000 & sleep 1000 & wait`;
}

/** The group the tool's shell leads, once it and both sleeps are running. */
async function runningGroup(pidFile: string): Promise<number> {
  const pgid = await until(() => {
    if (!existsSync(pidFile)) return undefined;
    const text = readFileSync(pidFile, "utf8").trim();
    return text ? Number(text) : undefined;
  }, "the tool's shell to start");
  await until(() => ((liveGroupMembers(pgid)?.length ?? 0) >= 3 ? true : undefined), "the sleeps");
  return pgid;
}

/** Every tool_use in the session's transcript, and every tool_result's id. */
function transcriptPairs(home: string, sessionId: string): { uses: string[]; results: string[] } {
  const projects = join(home, "projects");
  const dir = readdirSync(projects).find((d) => existsSync(join(projects, d, `${sessionId}.jsonl`)));
  if (!dir) throw new Error(`no transcript for ${sessionId}`);
  const uses: string[] = [];
  const results: string[] = [];
  for (const entry of jsonLines(readFileSync(join(projects, dir, `${sessionId}.jsonl`), "utf8"))) {
    const content = entry.message?.content;
    if (!Array.isArray(content)) continue;
    for (const block of content) {
      if (block.type === "tool_use") uses.push(block.id);
      if (block.type === "tool_result") results.push(block.tool_use_id);
    }
  }
  return { uses, results };
}

describe.each([
  ["SIGTERM", 143],
  ["SIGHUP", 129],
] as const)("%s during a Bash call", (signal, code) => {
  it(`interrupts, kills the tool's whole group, flushes a paired transcript and exits ${code}`, async () => {
    const pidFile = join(fx.work.path, "shell.pid");
    fx.mock.enqueue(reply.toolCalls([{ name: "Bash", input: { command: sleeperCommand(pidFile) } }]));
    fx.mock.setWhenEmpty(reply.text("should not be asked"));
    let pgid = 0;
    let leftAtExit: number[] | undefined;
    const r = await runCli(
      [
        "-p",
        "run it",
        "--output-format",
        "stream-json",
        "--verbose",
        "--permission-mode",
        "bypassPermissions",
      ],
      {
        env: fx.env,
        cwd: fx.work.path,
        onSpawn: (child: ChildProcess) => {
          child.stdin?.end();
          child.once("exit", () => {
            leftAtExit = liveGroupMembers(pgid);
          });
          void runningGroup(pidFile).then((group) => {
            pgid = group;
            child.kill(signal);
          });
        },
      },
    );
    expect(r.code).toBe(code);
    expect(pgid).toBeGreaterThan(0);
    expect(leftAtExit).toEqual([]); // 0 processes of the tool's group at the moment goat exited
    const lines = jsonLines(r.stdout);
    const result = lines.at(-1);
    expect(result.type).toBe("result");
    const { uses, results } = transcriptPairs(fx.home.path, result.session_id);
    expect(uses).toHaveLength(1);
    expect(results).toEqual(uses);
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/); // no stack trace
  });
});

describe("stdin closing in stream-json mode", () => {
  it("finishes the queued turn, then exits 0 with no tool process left (background shell included)", async () => {
    const bgPid = join(fx.work.path, "bg.pid");
    const fgPid = join(fx.work.path, "fg.pid");
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: sleeperCommand(bgPid), run_in_background: true } }]),
      reply.toolCalls([{ name: "Bash", input: { command: sleeperCommand(fgPid), timeout: 1500 } }]),
      reply.text("done"),
    );
    const groups: number[] = [];
    let leftAtExit: number[][] = [];
    const r = await runCli(
      [
        "-p",
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--permission-mode",
        "bypassPermissions",
      ],
      {
        env: fx.env,
        cwd: fx.work.path,
        timeoutMs: 20_000,
        onSpawn: (child: ChildProcess) => {
          child.stdin?.write(
            `${JSON.stringify({ type: "user", message: { role: "user", content: "start both" } })}\n`,
          );
          child.once("exit", () => {
            leftAtExit = groups.map((g) => liveGroupMembers(g) ?? []);
          });
          void (async () => {
            groups.push(await runningGroup(bgPid));
            groups.push(await runningGroup(fgPid));
            child.stdin?.end(); // EOF while the foreground command still runs
          })();
        },
      },
    );
    expect(r.code).toBe(0);
    expect(groups).toHaveLength(2);
    expect(leftAtExit).toEqual([[], []]);
    const result = jsonLines(r.stdout).at(-1);
    expect(result).toMatchObject({ type: "result", subtype: "success", result: "done" });
  });
});

describe("a reader that closes stdout early", () => {
  // Answers far larger than a pipe's buffer, so writes certainly fail once the reader is gone.
  it.each([
    ["text", reply.text(`${"line\n".repeat(300_000)}`, { chunkSize: 100_000 })],
    ["stream-json", reply.text("x".repeat(1_500_000), { chunkSize: 100_000 })],
  ] as const)("%s output: no EPIPE stack trace, exits quietly", async (format, answer) => {
    fx.mock.enqueue(answer);
    const args = ["-p", "hi", "--output-format", format];
    if (format === "stream-json") args.push("--verbose", "--include-partial-messages");
    const r = await runCli(args, {
      env: fx.env,
      cwd: fx.work.path,
      onSpawn: (child: ChildProcess) => {
        child.stdin?.end();
        // `| head -1`: read the first line, then close the pipe.
        child.stdout?.once("data", () => child.stdout?.destroy());
      },
    });
    expect(r.stderr).not.toMatch(/EPIPE|Error|at .*:\d+/);
    expect(r.code).toBe(141);
  });
});
