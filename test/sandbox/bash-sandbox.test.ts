/**
 * The Bash sandbox under real bubblewrap: writes outside the allowed directories fail, reads work,
 * the network and Unix sockets are refused, no process outlives the call, protected paths stay
 * read-only, and a sandbox that cannot start fails the call without running the command.
 */
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createBashSandbox } from "../../src/sandbox/bash-sandbox.js";
import { findExecutable } from "../../src/sandbox/bwrap.js";
import type { SandboxSettings } from "../../src/sandbox/settings.js";
import { getBackgroundShell, killBackgroundShell } from "../../src/tools/background-shells.js";
import { createBashTool } from "../../src/tools/bash.js";
import { runTool } from "../../src/tools/define-tool.js";
import { createTestSession, type TestSession, textOf } from "../tools/bash-test-context.js";

const bwrap = process.platform === "linux" ? findExecutable("bwrap") : undefined;
if (!bwrap) {
  console.warn(
    "SKIPPED: the Bash sandbox tests need bubblewrap (bwrap) on Linux; install the bubblewrap package to run them.",
  );
}

let outside: string;
let sessions: TestSession[] = [];
beforeAll(() => {
  // Not under /tmp: the sandbox has a private /tmp, so files there are out of its sight altogether.
  outside = fs.realpathSync(fs.mkdtempSync(path.join(os.homedir(), ".goat-sandbox-test-")));
  fs.writeFileSync(path.join(outside, "readable.txt"), "readable from the sandbox\n");
});
afterAll(() => {
  fs.rmSync(outside, { recursive: true, force: true });
});
afterEach(async () => {
  await Promise.all(sessions.map((s) => s.dispose()));
  sessions = [];
});

function setup(settings: SandboxSettings = {}, extraDirs: string[] = []) {
  const s = createTestSession();
  sessions.push(s);
  const sandbox = createBashSandbox(
    { enabled: true, ...settings },
    { directories: () => [s.dir, ...extraDirs] },
  );
  const tool = createBashTool({ sandbox });
  const run = async (input: Record<string, unknown>) => {
    const result = await runTool(tool, input, s.ctx);
    return { text: textOf(result.content), isError: result.isError === true, details: result.details };
  };
  return { s, sandbox, tool, run };
}

/** Pids of live host processes whose name (argv[0]) starts with `token`. */
function processesWith(token: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8");
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      if (cmdline.startsWith(token) && state !== "Z") pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

describe.skipIf(!bwrap)("Bash in the sandbox (real bubblewrap)", () => {
  it("cannot write outside the working directory, and can inside it", async () => {
    const { s, run } = setup();
    const target = path.join(outside, "escaped.txt");
    const r = await run({ command: `echo x > ${target}` });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/Read-only file system/);
    expect(r.text).toContain("The command ran in the sandbox");
    expect(fs.existsSync(target)).toBe(false);

    const inside = await run({ command: "mkdir -p sub && echo made > sub/inside.txt && cat sub/inside.txt" });
    expect(inside).toMatchObject({ isError: false, text: "made" });
    expect(fs.readFileSync(path.join(s.dir, "sub", "inside.txt"), "utf8")).toBe("made\n");
  });

  it("can write in an additional directory", async () => {
    const { run } = setup({}, [outside]);
    const r = await run({ command: `echo ok > ${path.join(outside, "allowed.txt")}` });
    expect(r.isError).toBe(false);
    expect(fs.readFileSync(path.join(outside, "allowed.txt"), "utf8")).toBe("ok\n");
    fs.rmSync(path.join(outside, "allowed.txt"));
  });

  it("reads allowed files, inside and outside the working directory", async () => {
    const { s, run } = setup();
    fs.writeFileSync(path.join(s.dir, "here.txt"), "here\n");
    const r = await run({ command: `cat here.txt ${path.join(outside, "readable.txt")}` });
    expect(r).toMatchObject({ isError: false, text: "here\nreadable from the sandbox" });
  });

  it("gets a private /tmp, empty at the start and gone afterwards", async () => {
    const { run } = setup();
    const name = `goat-private-${randomUUID()}`;
    const r = await run({ command: `echo secret > /tmp/${name} && cat /tmp/${name}` });
    expect(r).toMatchObject({ isError: false, text: "secret" });
    expect(fs.existsSync(path.join("/tmp", name))).toBe(false);
    const again = await run({ command: `cat /tmp/${name}` });
    expect(again.isError).toBe(true);
  });

  it("refuses the network: a server on 127.0.0.1 is never reached", async () => {
    const { run } = setup();
    let connections = 0;
    const server = net.createServer((socket) => {
      connections++;
      socket.end("hello\n");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3`;
      const control = await runTool(createBashTool(), { command: probe }, setup().s.ctx);
      expect(textOf(control.content)).toBe("hello"); // the same command reaches it unsandboxed
      expect(connections).toBe(1);

      const r = await run({ command: probe });
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/Connection refused|Network is unreachable/);
      const dns = await run({ command: "getent hosts registry.npmjs.org || echo no-dns" });
      expect(dns.text).toContain("no-dns");
      expect(connections).toBe(1);
    } finally {
      server.close();
    }
  });

  it("refuses Unix sockets, which a read-only filesystem would not stop", async () => {
    const { run } = setup();
    const socketPath = path.join(outside, `s-${process.pid}.sock`);
    let connections = 0;
    const server = net.createServer((socket) => {
      connections++;
      socket.end();
    });
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      const script = `require("net").connect(${JSON.stringify(socketPath)}).on("connect",()=>{console.log("connected");process.exit(0)}).on("error",e=>{console.log(e.code);process.exit(1)})`;
      const r = await run({ command: `${JSON.stringify(process.execPath)} -e '${script}'` });
      expect(r.text).toContain("EPERM");
      expect(connections).toBe(0);
      const allowed = setup({ network: { allowAllUnixSockets: true } });
      const ok = await allowed.run({ command: `${JSON.stringify(process.execPath)} -e '${script}'` });
      expect(ok.text).toContain("connected");
      expect(connections).toBe(1);
    } finally {
      server.close();
    }
  });

  it("leaves no process running after the call, even detached ones", async () => {
    const { run } = setup();
    const token = `goat-stray-${randomUUID()}`;
    // Four ways to outlive a shell: background job, nohup, a new session, a double fork.
    const command = [
      `(exec -a ${token}-bg sleep 300) &`,
      `nohup bash -c 'exec -a ${token}-nohup sleep 300' >/dev/null 2>&1 &`,
      `setsid bash -c 'exec -a ${token}-setsid sleep 300' >/dev/null 2>&1 < /dev/null &`,
      `( ( exec -a ${token}-fork sleep 300 ) & ) >/dev/null 2>&1`,
      "sleep 0.2; echo started",
    ].join("\n");
    const r = await run({ command });
    expect(r.text).toContain("started");
    expect(processesWith(token)).toEqual([]);
  });

  it("the same stray process survives without the sandbox (the check above can fail)", async () => {
    const s = setup().s;
    const token = `goat-stray-${randomUUID()}`;
    await runTool(
      createBashTool(),
      { command: `setsid bash -c 'exec -a ${token} sleep 300' >/dev/null 2>&1 < /dev/null & sleep 0.2` },
      s.ctx,
    );
    const pids = processesWith(token);
    expect(pids.length).toBe(1);
    for (const pid of pids) process.kill(pid, "SIGKILL");
  });

  it("stops the whole sandbox on timeout", async () => {
    const { run } = setup();
    const token = `goat-timeout-${randomUUID()}`;
    const r = await run({ command: `setsid bash -c 'exec -a ${token} sleep 300' & sleep 300`, timeout: 500 });
    expect(r.details).toMatchObject({ timedOut: true });
    expect(processesWith(token)).toEqual([]);
  });

  it("sandboxes background shells too, and KillShell ends everything they started", async () => {
    const { s, run } = setup();
    const token = `goat-bgshell-${randomUUID()}`;
    const target = path.join(outside, "from-background.txt");
    const r = await run({
      command: `echo x > ${target}; setsid bash -c 'exec -a ${token} sleep 300' & sleep 300`,
      run_in_background: true,
    });
    const id = (r.details as { backgroundShellId: string }).backgroundShellId;
    const shell = getBackgroundShell(s.ctx.state, id);
    if (!shell) throw new Error("no background shell");
    // The line runs in order: once the process named by the token is up, the write was tried.
    await vi.waitFor(() => expect(processesWith(token).length).toBe(1), { timeout: 10_000 });
    expect(fs.existsSync(target)).toBe(false);
    await killBackgroundShell(shell);
    expect(processesWith(token)).toEqual([]);
  });

  it("keeps git's config and hooks and Goat's settings read-only, and .git in place", async () => {
    const { s, run } = setup();
    fs.mkdirSync(path.join(s.dir, ".git", "hooks"), { recursive: true });
    fs.mkdirSync(path.join(s.dir, ".git", "objects"));
    fs.writeFileSync(path.join(s.dir, ".git", "config"), "[core]\n");
    fs.mkdirSync(path.join(s.dir, ".goat"));
    // The repository's own data stays writable: git can still commit.
    const ok = await run({ command: "echo blob > .git/objects/x && echo fine" });
    expect(ok).toMatchObject({ isError: false, text: "fine" });
    const attempts = [
      "echo '[core] fsmonitor = touch /tmp/pwned' >> .git/config",
      "echo 'touch /tmp/pwned' > .git/hooks/pre-commit",
      "mv .git .git-aside",
      "rm -rf .git",
      "echo '{}' > .goat/settings.local.json",
    ];
    for (const command of attempts) {
      const r = await run({ command });
      expect(r.isError, command).toBe(true);
    }
    expect(fs.readFileSync(path.join(s.dir, ".git", "config"), "utf8")).toBe("[core]\n");
    expect(fs.readdirSync(path.join(s.dir, ".git", "hooks"))).toEqual([]);
    expect(fs.existsSync(path.join(s.dir, ".goat", "settings.local.json"))).toBe(false);
  });

  it("keeps the shell start-up file the session's environment names read-only", async () => {
    const s = createTestSession();
    sessions.push(s);
    const startup = path.join(s.dir, "env.sh");
    fs.writeFileSync(startup, "# the user's setup\n");
    const sandbox = createBashSandbox(
      { enabled: true },
      { directories: () => [s.dir], protectedFiles: [startup] },
    );
    const tool = createBashTool({ sandbox });
    const r = await runTool(tool, { command: "echo 'touch /tmp/pwned' >> env.sh" }, s.ctx);
    expect(r.isError).toBe(true);
    const ok = await runTool(tool, { command: "echo fine > other.sh && cat other.sh" }, s.ctx);
    expect(textOf(ok.content)).toBe("fine");
    expect(fs.readFileSync(startup, "utf8")).toBe("# the user's setup\n");
  });

  it("runs excluded commands and allowed requests to leave unsandboxed, and ignores the request when not allowed", async () => {
    const target = path.join(outside, "unsandboxed.txt");
    const excluded = setup({ excludedCommands: ["touch"] });
    expect((await excluded.run({ command: `touch ${target}` })).isError).toBe(false);
    expect(fs.existsSync(target)).toBe(true);
    fs.rmSync(target);

    const leaving = setup();
    const r = await leaving.run({ command: `touch ${target}`, dangerouslyDisableSandbox: true });
    expect(r.isError).toBe(false);
    expect(fs.existsSync(target)).toBe(true);
    fs.rmSync(target);

    const strict = setup({ allowUnsandboxedCommands: false });
    const refused = await strict.run({ command: `touch ${target}`, dangerouslyDisableSandbox: true });
    expect(refused.isError).toBe(true);
    expect(fs.existsSync(target)).toBe(false);
  });
});

describe("a sandbox that cannot start", () => {
  it("fails the call with a clear message when bwrap is not on PATH, and runs nothing", async () => {
    const s = createTestSession();
    sessions.push(s);
    const sandbox = createBashSandbox({ enabled: true }, { platform: "linux", envPath: "/nonexistent-bin" });
    const result = await runTool(createBashTool({ sandbox }), { command: "touch ran.txt" }, s.ctx);
    expect(result.isError).toBe(true);
    expect(textOf(result.content)).toContain(
      "The sandbox could not start: bubblewrap (bwrap) is not installed",
    );
    expect(textOf(result.content)).toContain("The command was not run");
    expect(fs.existsSync(path.join(s.dir, "ran.txt"))).toBe(false);
  });

  it("names a bwrapPath that does not exist", async () => {
    const s = createTestSession();
    sessions.push(s);
    const sandbox = createBashSandbox(
      { enabled: true, bwrapPath: "/nonexistent/bwrap" },
      { platform: "linux" },
    );
    const result = await runTool(
      createBashTool({ sandbox }),
      { command: "touch ran.txt", run_in_background: true },
      s.ctx,
    );
    expect(textOf(result.content)).toContain(
      "sandbox.bwrapPath /nonexistent/bwrap is not an executable file",
    );
    expect(fs.existsSync(path.join(s.dir, "ran.txt"))).toBe(false);
  });

  it.skipIf(!bwrap)("reports what bwrap said when it cannot build a sandbox", async () => {
    const s = createTestSession();
    sessions.push(s);
    const fake = path.join(s.dir, "bwrap");
    fs.writeFileSync(
      fake,
      "#!/bin/sh\ncase \"$1\" in --version) echo 'bubblewrap 0.8.0';; *) echo 'bwrap: No permissions to create new namespace' >&2; exit 1;; esac\n",
      { mode: 0o755 },
    );
    const sandbox = createBashSandbox({ enabled: true, bwrapPath: fake }, { platform: "linux" });
    const result = await runTool(createBashTool({ sandbox }), { command: "touch ran.txt" }, s.ctx);
    expect(textOf(result.content)).toContain("No permissions to create new namespace");
    expect(textOf(result.content)).toContain("unprivileged_userns_clone");
    expect(fs.existsSync(path.join(s.dir, "ran.txt"))).toBe(false);
  });

  it("says the sandbox is unavailable on a platform without one", async () => {
    const s = createTestSession();
    sessions.push(s);
    const sandbox = createBashSandbox({ enabled: true }, { platform: "win32" });
    const result = await runTool(createBashTool({ sandbox }), { command: "echo hi" }, s.ctx);
    expect(textOf(result.content)).toContain("the sandbox is unavailable on this platform (win32)");
  });
});
