/**
 * `goat` answers SIGTERM within a second while a tool is busy with the worst input a model can give
 * it: the built-in Grep (ripgrep absent) matching `(a+)+$` against a line of 40 a's, 2^40 steps of
 * backtracking (on the old code the match ran on the main thread, so the signal handler could not run
 * until the match ended, minutes later), or a Bash command that ignores SIGTERM (the old code gave it
 * the tools' 1.5 s grace before SIGKILL; goat exited 1.6 s after the signal).
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { liveGroupMembers } from "../../src/tools/process-tree.js";
import { reply } from "../support/mock-provider.js";
import { jsonLines, runCli, useCliFixture } from "./helpers.js";

const fx = useCliFixture("goat-busy-signal");

describe("SIGTERM while the built-in Grep runs a catastrophic regular expression", () => {
  it("exits 143 within a second of the signal, the Grep call answered", async () => {
    writeFileSync(join(fx.work.path, "evil.txt"), `${"a".repeat(40)}b\n`);
    fx.mock.enqueue(reply.toolCalls([{ name: "Grep", input: { pattern: "(a+)+$", path: fx.work.path } }]));
    fx.mock.setWhenEmpty(reply.text("should not be asked"));
    let signalledAt = 0;
    let exitedAt = 0;
    const r = await runCli(
      [
        "-p",
        "search",
        "--output-format",
        "stream-json",
        "--verbose",
        "--permission-mode",
        "bypassPermissions",
      ],
      {
        env: { ...fx.env, GOAT_GREP_BACKEND: "builtin" },
        cwd: fx.work.path,
        timeoutMs: 30_000,
        onSpawn: (child: ChildProcess) => {
          child.stdin?.end();
          child.once("exit", () => {
            exitedAt = Date.now();
          });
          let seen = "";
          const onData = (chunk: Buffer) => {
            seen += chunk.toString();
            if (!seen.includes('"name":"Grep"')) return;
            child.stdout?.off("data", onData);
            // The call is announced before it starts: give the match time to be well under way.
            setTimeout(() => {
              signalledAt = Date.now();
              child.kill("SIGTERM");
            }, 700);
          };
          child.stdout?.on("data", onData);
        },
      },
    );
    expect(signalledAt).toBeGreaterThan(0);
    expect(r.code).toBe(143);
    expect(exitedAt - signalledAt).toBeLessThan(1000);
    const result = jsonLines(r.stdout).at(-1);
    expect(result.type).toBe("result");
  });
});

describe("SIGTERM while a Bash command ignores SIGTERM", () => {
  it("exits 143 within a second, the command's group killed", async () => {
    const pidFile = join(fx.work.path, "deaf.pid");
    const command = `trap '' TERM; echo $$ > ${pidFile}; while :; do sleep 0.05; done`;
    fx.mock.enqueue(reply.toolCalls([{ name: "Bash", input: { command } }]));
    fx.mock.setWhenEmpty(reply.text("should not be asked"));
    let signalledAt = 0;
    let exitedAt = 0;
    let pgid = 0;
    let leftAtExit: number[] | undefined;
    const r = await runCli(["-p", "run it", "--permission-mode", "bypassPermissions"], {
      env: fx.env,
      cwd: fx.work.path,
      timeoutMs: 30_000,
      onSpawn: (child: ChildProcess) => {
        child.stdin?.end();
        child.once("exit", () => {
          exitedAt = Date.now();
          leftAtExit = liveGroupMembers(pgid);
        });
        const poll = setInterval(() => {
          if (!existsSync(pidFile) || readFileSync(pidFile, "utf8").trim() === "") return;
          clearInterval(poll);
          pgid = Number(readFileSync(pidFile, "utf8").trim());
          signalledAt = Date.now();
          child.kill("SIGTERM");
        }, 25);
      },
    });
    expect(pgid).toBeGreaterThan(0);
    expect(r.code).toBe(143);
    expect(exitedAt - signalledAt).toBeLessThan(1000);
    expect(leftAtExit).toEqual([]);
  });
});
