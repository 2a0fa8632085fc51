/**
 * The spawn helper (`src/tools/spawn-helper.ts`): Bash's processes are started by a small helper
 * process, not forked from the host, so a large host does not stall on each call. What is checked
 * here: the command's parent is the helper (the host did not fork), a stop asked before the pid is
 * known still kills the command, a helper that dies is replaced, the helper never keeps its host
 * alive, a host killed with SIGKILL takes its running commands with it, and the host spawns directly when the helper is turned off or cannot start. The Bash and
 * sandbox tests (test/tools/bash*.test.ts, test/sandbox/) check that output, exit codes, signals and
 * kills behave as with a direct spawn.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isProcessAlive, spawnShell, whenSpawned } from "../../src/tools/process-tree.js";
import { runCommand } from "../../src/tools/run-command.js";
import { spawnHelperPid } from "../../src/tools/spawn-helper.js";

const dirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "goat-spawn-helper-test-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** The parent pid of `pid`, from /proc. */
function parentOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

function run(command: string, signal = new AbortController().signal) {
  return runCommand({ command, cwd: os.tmpdir(), timeoutMs: 20_000, signal, spillPath: () => "/dev/null" });
}

async function waitFor(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(process.platform !== "linux")("the spawn helper", () => {
  it("starts the command: the host does not fork, and the pid comes with the spawn event", async () => {
    const child = spawnShell("sleep 5", os.tmpdir());
    const pid = await whenSpawned(child);
    expect(pid).toBeGreaterThan(0);
    const helper = spawnHelperPid();
    expect(helper).toBeGreaterThan(0);
    expect(parentOf(pid!)).toBe(helper);
    expect(parentOf(pid!)).not.toBe(process.pid);
    process.kill(-pid!, "SIGKILL");
    await new Promise((resolve) => child.once("close", resolve));
  });

  it("an abort before the pid is known still kills the command", async () => {
    const dir = tempDir();
    const pidFile = path.join(dir, "pid");
    const controller = new AbortController();
    // Written whole, then renamed: a kill between the shell's open and its write left an empty file,
    // read as pid 0 (whose kill(0, 0) always succeeds).
    const outcome = run(
      `echo $$ > ${pidFile}.part && mv ${pidFile}.part ${pidFile}; exec sleep 30`,
      controller.signal,
    );
    controller.abort(); // synchronously: the helper has not answered yet
    expect((await outcome).interrupted).toBe(true);
    await waitFor(() => fs.existsSync(pidFile), 2000).catch(() => {});
    // Either it never got to run, or the kill reached it once its pid arrived.
    if (fs.existsSync(pidFile)) {
      const pid = Number(fs.readFileSync(pidFile, "utf8"));
      expect(pid).toBeGreaterThan(0);
      await waitFor(() => !isProcessAlive(pid));
    }
  });

  it("a helper that dies is replaced, and commands keep their output and exit codes", async () => {
    expect((await run("echo first")).output.text).toBe("first\n");
    const first = spawnHelperPid()!;
    process.kill(first, "SIGKILL");
    await waitFor(() => spawnHelperPid() !== first);
    const outcome = await run("echo second; exit 4");
    expect(outcome.output.text).toBe("second\n");
    expect(outcome.exitCode).toBe(4);
    expect(spawnHelperPid()).toBeGreaterThan(0);
    expect(spawnHelperPid()).not.toBe(first);
  });
});

interface FreshRun {
  parent: number;
  host: number;
  helper: number | null;
  exitCode: number | null;
  exitedWithinMs: number;
}

/** Runs a script against the built package in a fresh Node process: its last stdout line, parsed. */
async function inFreshProcess(script: string, env: Record<string, string> = {}): Promise<FreshRun> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    cwd: path.join(import.meta.dirname, "../.."),
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const started = Date.now();
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
  });
  await new Promise((resolve) => child.once("close", resolve));
  const line = out.trim().split("\n").at(-1) ?? "{}";
  return { ...JSON.parse(line), exitedWithinMs: Date.now() - started };
}

const RUN_ONE = `
const { runCommand } = await import("./dist/tools/run-command.js");
const { spawnHelperPid } = await import("./dist/tools/spawn-helper.js");
const outcome = await runCommand({ command: "echo $PPID", cwd: "/tmp", timeoutMs: 10000,
  signal: new AbortController().signal, spillPath: () => "/dev/null" });
console.log(JSON.stringify({ parent: Number(outcome.output.text), host: process.pid, helper: spawnHelperPid() ?? null, exitCode: outcome.exitCode }));
`;

describe.skipIf(process.platform !== "linux")("the spawn helper in a host process", () => {
  it("never keeps the host alive: a host that ran a command exits by itself", async () => {
    const result = await inFreshProcess(RUN_ONE);
    expect(result.exitCode).toBe(0);
    expect(result.parent).toBe(result.helper);
    expect(result.exitedWithinMs).toBeLessThan(10_000);
  });

  it("GOAT_SPAWN_HELPER=0 spawns from the host, as before", async () => {
    const result = await inFreshProcess(RUN_ONE, { GOAT_SPAWN_HELPER: "0" });
    expect(result.helper).toBeNull();
    expect(result.parent).toBe(result.host);
    expect(result.exitCode).toBe(0);
  });

  it("a helper that cannot start falls back to spawning from the host", async () => {
    const result = await inFreshProcess(
      `Object.defineProperty(process, "execPath", { value: "/nonexistent/node" });\n${RUN_ONE}`,
    );
    expect(result.parent).toBe(result.host);
    expect(result.exitCode).toBe(0);
  });
});

/** A host that starts a long command through the helper, says the command's pid, then waits. */
const START_LONG = `
const { spawnShell, whenSpawned } = await import("./dist/tools/process-tree.js");
const child = spawnShell("sleep 60", "/tmp");
await whenSpawned(child);
console.log(JSON.stringify({ pid: child.pid }));
setInterval(() => {}, 1000);
`;

describe.skipIf(process.platform !== "linux")("a host killed with SIGKILL", () => {
  it("takes its running commands with it: the helper kills their process groups", async () => {
    const host = spawn(process.execPath, ["--input-type=module", "-e", START_LONG], {
      cwd: path.join(import.meta.dirname, "../.."),
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    host.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
    });
    await waitFor(() => out.includes("}"), 15_000);
    const { pid } = JSON.parse(out.trim()) as { pid: number };
    expect(isProcessAlive(pid)).toBe(true);
    host.kill("SIGKILL");
    await waitFor(() => !isProcessAlive(pid), 5_000);
  });
});

/**
 * A host that dies the moment its command starts, while the helper is still handing over the
 * command's stderr pipe: Node defers the helper's `disconnect` until the host acknowledges that pipe,
 * which a dead host never does (every run left the command and the helper running before the fix).
 */
const DIE_AT_SPAWN = `
const { writeSync } = await import("node:fs");
const { spawnShell } = await import("./dist/tools/process-tree.js");
const { spawnHelperPid } = await import("./dist/tools/spawn-helper.js");
const child = spawnShell("sleep 60", "/tmp");
child.once("spawn", () => {
  writeSync(1, JSON.stringify({ pid: child.pid, helper: spawnHelperPid() }) + "\\n");
  process.kill(process.pid, "SIGKILL");
});
setInterval(() => {}, 1000);
`;

describe.skipIf(process.platform !== "linux")("a host killed while a pipe is handed over", () => {
  it("takes its command and its helper with it", async () => {
    const host = spawn(process.execPath, ["--input-type=module", "-e", DIE_AT_SPAWN], {
      cwd: path.join(import.meta.dirname, "../.."),
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    host.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
    });
    await new Promise((resolve) => host.once("close", resolve));
    const { pid, helper } = JSON.parse(out.trim()) as { pid: number; helper: number };
    try {
      await waitFor(() => !isProcessAlive(pid), 5_000);
      await waitFor(() => !isProcessAlive(helper), 5_000);
    } finally {
      // Whatever happened, nothing this test started stays behind.
      for (const target of [-pid, helper]) {
        try {
          process.kill(target, "SIGKILL");
        } catch {
          // Gone, as it should be.
        }
      }
    }
  });
});
