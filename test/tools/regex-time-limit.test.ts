/**
 * Model-supplied regular expressions never freeze the process: the built-in Grep and BashOutput's
 * filter run them in a worker, and so does Glob for a pattern whose regex could backtrack badly, so a
 * catastrophic pattern ends at the time limit or at an abort while timers keep firing on the main
 * thread. On the old code these patterns ran on the main thread for
 * minutes (2^40 backtracking steps), and no timer fired until they finished.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getBackgroundShell } from "../../src/tools/background-shells.js";
import { bashTool } from "../../src/tools/bash.js";
import { bashOutputTool } from "../../src/tools/bash-output.js";
import { runTool } from "../../src/tools/define-tool.js";
import { globTool } from "../../src/tools/glob.js";
import { globMayBacktrack } from "../../src/tools/glob-risk.js";
import { createGrepTool } from "../../src/tools/grep.js";
import { createToolSessionState, disposeToolSessionState, type ToolContext } from "../../src/tools/types.js";
import { textOf, waitFor } from "./bash-test-context.js";

/** A line on which `(a+)+$` backtracks 2^40 times: minutes of work for JavaScript's engine. */
const EVIL_LINE = `${"a".repeat(40)}b`;
const LIMIT_MS = 400;

let dir: string;
let state: ReturnType<typeof createToolSessionState>;
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-regex-limit-")));
  fs.writeFileSync(path.join(dir, "evil.txt"), `first line\n${EVIL_LINE}\n${"x".repeat(40)}\n`);
  state = createToolSessionState();
});
afterEach(async () => {
  await disposeToolSessionState(state);
  fs.rmSync(dir, { recursive: true, force: true });
});

function ctx(signal = new AbortController().signal): ToolContext {
  return {
    signal,
    cwd: dir,
    sessionId: `regex-${process.pid}`,
    toolUseId: "t",
    state,
    onUpdate: () => {},
    env: { ...process.env, GOAT_REGEX_TIME_LIMIT_MS: String(LIMIT_MS) },
  };
}

/** Runs `work` while a 10 ms interval counts how often the event loop got to run a timer. */
async function countingTicks<T>(work: () => Promise<T>): Promise<{ value: T; ticks: number; ms: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  const started = Date.now();
  try {
    const value = await work();
    return { value, ticks, ms: Date.now() - started };
  } finally {
    clearInterval(timer);
  }
}

const grep = createGrepTool({ backend: "builtin" });

describe("the built-in Grep and a catastrophic regular expression", () => {
  it.each(["(a+)+$", "(x+x+)+y", "^(a|a)*$"])(
    "%s ends at the time limit with a clear error, the event loop free throughout",
    async (pattern) => {
      const { value, ticks, ms } = await countingTicks(() =>
        runTool(grep, { pattern, output_mode: "content" }, ctx()),
      );
      expect(value.isError).toBe(true);
      expect(textOf(value.content)).toContain(`stopped after ${LIMIT_MS} ms`);
      expect(textOf(value.content)).toMatch(/Simplify the pattern/);
      expect(ms).toBeGreaterThanOrEqual(LIMIT_MS - 20);
      expect(ms).toBeLessThan(LIMIT_MS + 3000);
      // A frozen main thread would have run the interval once at most, after the match.
      expect(ticks).toBeGreaterThanOrEqual(Math.floor(LIMIT_MS / 10 / 4));
    },
  );

  it("an abort during the match ends the call at once", async () => {
    const ac = new AbortController();
    const run = runTool(grep, { pattern: "(a+)+$" }, { ...ctx(ac.signal), env: process.env });
    await new Promise((r) => setTimeout(r, 300));
    const abortedAt = Date.now();
    ac.abort(new Error("user stop"));
    const result = await run;
    expect(Date.now() - abortedAt).toBeLessThan(500);
    expect(result.isError).toBe(true);
    expect(textOf(result.content)).toContain("interrupted");
  });

  it("an ordinary pattern still finds its lines", async () => {
    const result = await runTool(grep, { pattern: "a+b$", output_mode: "content" }, ctx());
    expect(textOf(result.content)).toBe(`${path.join(dir, "evil.txt")}:2:${EVIL_LINE}`);
  });

  it("the limit counts the search, not a slow start: a host busy past the limit still gets its lines", async () => {
    const result = runTool(grep, { pattern: "a+b$", output_mode: "content" }, ctx());
    // The host is busy (a loaded machine) while the worker starts: longer than the whole limit.
    const busyUntil = Date.now() + LIMIT_MS + 200;
    while (Date.now() < busyUntil) {
      // spin
    }
    expect(textOf((await result).content)).toBe(`${path.join(dir, "evil.txt")}:2:${EVIL_LINE}`);
  });
});

describe("BashOutput's filter and a catastrophic regular expression", () => {
  it("ends at the time limit and consumes nothing; a later read gets the output", async () => {
    const started = await runTool(bashTool, { command: `cat evil.txt`, run_in_background: true }, ctx());
    const id = (started.details as { backgroundShellId: string }).backgroundShellId;
    const shell = getBackgroundShell(state, id)!;
    await waitFor(() => shell.status === "completed", "the shell to finish");
    const { value, ticks } = await countingTicks(() =>
      runTool(bashOutputTool, { bash_id: id, filter: "(a+)+$" }, ctx()),
    );
    expect(value.isError).toBe(true);
    expect(textOf(value.content)).toContain(`stopped after ${LIMIT_MS} ms`);
    expect(textOf(value.content)).toContain("No output was consumed");
    expect(ticks).toBeGreaterThanOrEqual(Math.floor(LIMIT_MS / 10 / 4));
    const filtered = textOf(
      (await runTool(bashOutputTool, { bash_id: id, filter: "^first" }, ctx())).content,
    );
    expect(filtered).toContain("<output>\nfirst line\n</output>");
  });
});

describe("Glob patterns whose regular expression could backtrack", () => {
  it("tells cheap patterns from costly ones", () => {
    for (const cheap of ["**/*.ts", "src/**/*.{ts,tsx}", "*a*a*b", "*.test.*", "a/**/b/**/c"]) {
      expect(globMayBacktrack(cheap), cheap).toBe(false);
    }
    for (const costly of ["*a*a*a*b", "+(a|aa)b", "**/a/**/a/**/a/**/b", "src/*x*y*z*"]) {
      expect(globMayBacktrack(costly), costly).toBe(true);
    }
  });

  it("a costly pattern against a hostile file name ends at the time limit, the event loop free", async () => {
    // picomatch's regex for this pattern takes seconds per 60-character name of a's, more each star.
    fs.writeFileSync(path.join(dir, "a".repeat(60)), "");
    const pattern = `${"*a".repeat(10)}*b`;
    const { value, ticks, ms } = await countingTicks(() => runTool(globTool, { pattern }, ctx()));
    expect(value.isError).toBe(true);
    expect(textOf(value.content)).toContain(`stopped after ${LIMIT_MS} ms`);
    expect(ms).toBeLessThan(LIMIT_MS + 3000);
    expect(ticks).toBeGreaterThanOrEqual(Math.floor(LIMIT_MS / 10 / 4));
  });

  it("a costly pattern still finds its files", async () => {
    fs.writeFileSync(path.join(dir, "xaxaxa.txt"), "");
    fs.writeFileSync(path.join(dir, "ab.txt"), "");
    const result = await runTool(globTool, { pattern: "*a*a*a*.txt" }, ctx());
    expect(textOf(result.content)).toBe(path.join(dir, "xaxaxa.txt"));
  });

  it("the built-in Grep refuses a costly glob instead of matching it on the main thread", async () => {
    const result = await runTool(grep, { pattern: "a", glob: "*a*a*a*a*b" }, ctx());
    expect(result.isError).toBe(true);
    expect(textOf(result.content)).toMatch(/could take exponential time/);
  });
});
