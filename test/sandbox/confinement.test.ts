/**
 * Confinement of auto-allowed Bash (issue #29): a line the permission engine allows on its own
 * analysis carries `confine`, and the Bash tool runs it in bubblewrap whether or not the user turned
 * the sandbox on. The tests play the analysis being WRONG — a "read-only" line that writes, reads
 * keys, reaches the network or a Unix socket by io_uring — and check that the mistake costs nothing.
 * Real bubblewrap; skipped with a message where it cannot run.
 */

import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createRenderer } from "../../src/cli/render/renderer.js";
import { createThinkingView } from "../../src/cli/render/thinking-view.js";
import { createStyle } from "../../src/cli/style.js";
import { createScreen } from "../../src/cli/terminal/screen.js";
import { createPermissionEngine, type PermissionMode } from "../../src/permissions/index.js";
import { createBashSandbox } from "../../src/sandbox/bash-sandbox.js";
import { findExecutable } from "../../src/sandbox/bwrap.js";
import { type ConfinementLevel, createConfinement } from "../../src/sandbox/confinement.js";
import { query } from "../../src/sdk/query.js";
import { createBashTool } from "../../src/tools/bash.js";
import { runTool } from "../../src/tools/define-tool.js";
import { collect, mockOptions, tempDir, toolResultsSent } from "../runtime/helpers.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { createTestSession, type TestSession, textOf } from "../tools/bash-test-context.js";

const bwrap = process.platform === "linux" ? findExecutable("bwrap") : undefined;
if (!bwrap) console.warn("SKIPPED: confinement tests need bubblewrap (bwrap) on Linux.");

const SECRET = "canary-secret-7f3a";
let outside: string;
let home: string;
let sessions: TestSession[] = [];

beforeAll(() => {
  // Not under /tmp: the sandbox has a private /tmp, where a write would vanish unseen.
  outside = fs.realpathSync(fs.mkdtempSync(path.join(os.homedir(), ".goat-confine-out-")));
  home = fs.realpathSync(fs.mkdtempSync(path.join(os.homedir(), ".goat-confine-home-")));
  for (const [rel, text] of [
    [".ssh/id_rsa", `-----BEGIN OPENSSH PRIVATE KEY-----\n${SECRET}\n`],
    [".aws/credentials", `[default]\naws_secret_access_key = ${SECRET}\n`],
    [".netrc", `machine example.com login me password ${SECRET}\n`],
  ]) {
    fs.mkdirSync(path.dirname(path.join(home, rel)), { recursive: true });
    fs.writeFileSync(path.join(home, rel), text);
  }
});
afterAll(() => {
  fs.rmSync(outside, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
});
afterEach(async () => {
  await Promise.all(sessions.map((s) => s.dispose()));
  sessions = [];
});

/** A Bash tool with confinement, and a runner that plays the engine's `confine` verdict. */
function setup() {
  const s = createTestSession();
  sessions.push(s);
  fs.writeFileSync(path.join(s.dir, "a.txt"), "project file\n");
  spawnSync("git", ["init", "-q", s.dir]);
  const tool = createBashTool({ confinement: createConfinement({ directories: () => [s.dir] }) });
  const env = {
    ...process.env,
    HOME: home,
    GITHUB_TOKEN: `ghp_${SECRET}`,
    AWS_SECRET_ACCESS_KEY: SECRET,
    DATABASE_URL: `postgres://app:${SECRET}@db.internal/app`,
    PLAIN_SETTING: "visible-value",
  };
  const run = async (command: string, confinement: ConfinementLevel) => {
    const result = await runTool(tool, { command }, { ...s.ctx, env, confinement });
    return { text: textOf(result.content), isError: result.isError === true };
  };
  return { s, run };
}

describe("the engine marks what it allows on its own analysis", () => {
  const decide = async (mode: PermissionMode, command: string, allowedTools: string[] = []) => {
    // A folder of its own: under npm, the repository's node_modules/.bin is on PATH (and a clone may
    // sit under /tmp), and a PATH directory inside the scope rightly makes such lines ask.
    const engine = createPermissionEngine({ cwd: tempDir("goat-confine-engine-"), mode, allowedTools });
    return engine.decide({
      toolName: "Bash",
      input: { command },
      sideEffect: "mutating",
      toolUseID: "t",
      signal: new AbortController().signal,
    });
  };

  it("read-only lines at read-only, edit lines at workspace, nothing else confined", async () => {
    expect(await decide("default", "ls -la")).toMatchObject({ behavior: "allow", confine: "read-only" });
    expect(await decide("plan", "cat package.json")).toMatchObject({ confine: "read-only" });
    expect(await decide("acceptEdits", "touch new.txt")).toMatchObject({ confine: "workspace" });
    // Allowed by the user's rule or mode: runs as the user said, unconfined.
    const ruled = await decide("default", "npm test", ["Bash(npm test:*)"]);
    expect(ruled).toMatchObject({ behavior: "allow", reason: "rule" });
    expect(ruled).not.toHaveProperty("confine");
    const bypass = await decide("bypassPermissions", "ls");
    expect(bypass.behavior).toBe("allow");
    expect(bypass).not.toHaveProperty("confine");
    // A line only partly covered by a rule: confined, but the ruled part may still write the project.
    expect(await decide("default", "npm test | tail -5", ["Bash(npm test:*)"])).toMatchObject({
      behavior: "allow",
      confine: "workspace",
    });
  });
});

describe.skipIf(!bwrap)("a confined command whose analysis was wrong costs nothing", () => {
  it("read-only: writes fail, in the project and outside", async () => {
    const { s, run } = setup();
    const escaped = path.join(outside, "escaped.txt");
    const r = await run(`touch made.txt; echo x > ${escaped}; echo more >> a.txt`, "read-only");
    expect(r.text).toMatch(/Read-only file system/);
    expect(r.text).toMatch(/ran confined/);
    expect(fs.existsSync(path.join(s.dir, "made.txt"))).toBe(false);
    expect(fs.existsSync(escaped)).toBe(false);
    expect(fs.readFileSync(path.join(s.dir, "a.txt"), "utf8")).toBe("project file\n");
  });

  it("read-only: key files, secret variables and other processes' environments are out of sight", async () => {
    const { run } = setup();
    const r = await run(
      `cat a.txt; cat ~/.ssh/id_rsa ~/.aws/credentials ~/.netrc; env; cat /proc/1/environ | tr '\\0' '\\n'; ls /proc | grep -c '^[0-9]'`,
      "read-only",
    );
    expect(r.text).toContain("project file");
    expect(r.text).toContain("PLAIN_SETTING=visible-value");
    expect(r.text).not.toContain(SECRET);
    // Only the sandbox's own processes: its init, the shell and the pipeline.
    const count = Number(
      r.text
        .trim()
        .split("\n")
        .find((l) => /^\d+$/.test(l.trim())) ?? "999",
    );
    expect(count).toBeLessThan(10);
  });

  it("no network: a listener on the host's loopback cannot be reached", async () => {
    const { run } = setup();
    const server = net.createServer((socket) => socket.end("hello-from-host\n"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const r = await run(`exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`, "read-only");
      expect(r.text).not.toContain("hello-from-host");
      expect(r.isError).toBe(true);
    } finally {
      server.close();
    }
  });

  const python = findExecutable("python3");
  const ioUringProbe = `python3 -c "import ctypes,os;l=ctypes.CDLL(None,use_errno=True);b=ctypes.create_string_buffer(120);r=l.syscall(425,4,b);print('io_uring', 'refused' if r<0 and ctypes.get_errno()==1 else 'open')"`;
  const ioUringOnHost = python
    ? spawnSync("bash", ["-c", ioUringProbe], { encoding: "utf8" }).stdout.includes("open")
    : false;
  it.skipIf(!ioUringOnHost)(
    "io_uring, which can make a Unix socket without socket(), is refused",
    async () => {
      const { run } = setup();
      for (const level of ["read-only", "workspace"] as const) {
        const r = await run(ioUringProbe, level);
        expect(r.text).toContain("io_uring refused");
      }
    },
  );

  it("workspace: the project is writable, .git and outside are not, protected names made are removed", async () => {
    const { s, run } = setup();
    const escaped = path.join(outside, "escaped-ws.txt");
    const config = fs.readFileSync(path.join(s.dir, ".git", "config"), "utf8");
    const r = await run(
      [
        "echo new > made.txt",
        "echo '[core] fsmonitor = evil' >> .git/config",
        "echo /tmp/evil > .git/commondir",
        "mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit",
        `echo x > ${escaped}`,
        "mkdir -p .claude && echo '{}' > .claude/settings.json",
        "echo '{}' > .mcp.json",
        "true",
      ].join("; "),
      "workspace",
    );
    expect(fs.readFileSync(path.join(s.dir, "made.txt"), "utf8")).toBe("new\n");
    expect(fs.readFileSync(path.join(s.dir, ".git", "config"), "utf8")).toBe(config);
    expect(fs.existsSync(path.join(s.dir, ".git", "commondir"))).toBe(false);
    expect(fs.existsSync(path.join(s.dir, ".git", "hooks", "pre-commit"))).toBe(false);
    expect(fs.existsSync(escaped)).toBe(false);
    expect(fs.existsSync(path.join(s.dir, ".claude"))).toBe(false);
    expect(fs.existsSync(path.join(s.dir, ".mcp.json"))).toBe(false);
    expect(r.text).toMatch(/Removed .*\.claude.*\.mcp\.json/s);
  });
});

describe.skipIf(!bwrap)("the user's sandbox keeps what git obeys read-only, existing or not", () => {
  it("removes a commondir, hooks and settings a sandboxed command created; keeps config.worktree", async () => {
    const s = createTestSession();
    sessions.push(s);
    spawnSync("git", ["init", "-q", s.dir]);
    fs.writeFileSync(path.join(s.dir, ".git", "config.worktree"), "[core]\n");
    const sandbox = createBashSandbox({ enabled: true }, { directories: () => [s.dir] });
    const tool = createBashTool({ sandbox });
    const result = await runTool(
      tool,
      {
        command:
          "git add -A >/dev/null; echo /x > .git/commondir; echo '[core] fsmonitor = evil' >> .git/config.worktree; mkdir -p .git/modules/m && echo bad > .git/modules/m/config; echo '{}' > .mcp.json; echo ok",
      },
      s.ctx,
    );
    const text = textOf(result.content);
    expect(text).toMatch(/Removed/);
    expect(fs.readFileSync(path.join(s.dir, ".git", "config.worktree"), "utf8")).toBe("[core]\n");
    for (const rel of [".git/commondir", ".git/modules", ".mcp.json"])
      expect(fs.existsSync(path.join(s.dir, rel)), rel).toBe(false);
    // Committing still works in the sandbox: objects, refs, index and logs stay writable.
    fs.writeFileSync(path.join(s.dir, "f.txt"), "x\n");
    const commit = await runTool(
      tool,
      {
        command:
          "git add f.txt && git -c user.name=t -c user.email=t@t commit -qm one && git log --oneline | wc -l",
      },
      s.ctx,
    );
    expect(textOf(commit.content).trim()).toBe("1");
  });
});

describe.skipIf(!bwrap)("query(): auto-allowed Bash runs confined without the sandbox setting", () => {
  let mock: MockProvider;
  beforeAll(async () => {
    mock = await startMockProvider();
  });
  afterAll(async () => {
    await mock.close();
  });

  it("says what confines it in system/init and tells the model when a confined command fails", async () => {
    const cwd = tempDir("goat-confine-query-");
    mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: "ls missing-dir" }, id: "b1" }]),
      reply.text("ok"),
    );
    const messages = await collect(
      query({
        prompt: "go",
        options: mockOptions(mock, "anthropic", { cwd, tools: ["Bash"], permissionMode: "default" }),
      }),
    );
    const init = messages.find((m) => m.type === "system" && m.subtype === "init") as {
      goat_confinement?: string;
    };
    expect(init.goat_confinement).toBe(bwrap);
    const result = toolResultsSent(mock.requests[1].body)[0];
    expect(JSON.stringify(result.content)).toMatch(/ran confined: a read-only filesystem/);
  });

  it("where no sandbox can run, system/init says so and why, and the analysis is the only line", async () => {
    const cwd = tempDir("goat-confine-none-");
    // A PATH with the shell and ls but no bwrap.
    const bin = tempDir("goat-confine-bin-");
    for (const tool of ["bash", "ls"]) fs.symlinkSync(findExecutable(tool) as string, path.join(bin, tool));
    mock.requests.length = 0;
    mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: "ls missing-dir" }, id: "b1" }]),
      reply.text("ok"),
    );
    const messages = await collect(
      query({
        prompt: "go",
        options: mockOptions(mock, "anthropic", {
          cwd,
          tools: ["Bash"],
          permissionMode: "default",
          env: { ...process.env, PATH: bin },
        }),
      }),
    );
    const init = messages.find((m) => m.type === "system" && m.subtype === "init") as {
      goat_confinement?: string;
      goat_confinement_problem?: string;
    };
    expect(init.goat_confinement).toBe("none");
    expect(init.goat_confinement_problem).toMatch(/bubblewrap \(bwrap\) is not installed/);
    const result = toolResultsSent(mock.requests[1].body)[0];
    expect(JSON.stringify(result.content)).toContain("No such file or directory");
    expect(JSON.stringify(result.content)).not.toMatch(/ran confined/);
  });
});

describe("the interactive goat says once that nothing confines", () => {
  it("prints the reason from system/init, once per session", () => {
    let out = "";
    const screen = createScreen(
      {
        columns: 100,
        write: (t: string) => {
          out += t;
          return true;
        },
      } as unknown as NodeJS.WriteStream,
      false,
    );
    const status = { show() {}, hide() {}, end() {}, tokens() {}, retry() {} };
    const style = createStyle(false);
    const thinking = createThinkingView(screen, style, { expanded: false, live: false });
    const renderer = createRenderer(screen, style, status as never, "/tmp", thinking);
    const init = {
      type: "system",
      subtype: "init",
      model: "m",
      mcp_servers: [],
      goat_confinement: "none",
      goat_confinement_problem: "bubblewrap (bwrap) is not installed",
    };
    renderer.handle(init as never);
    renderer.handle(init as never);
    expect(out.match(/No sandbox here: bubblewrap \(bwrap\) is not installed/g)).toHaveLength(1);
    out = "";
    renderer.handle({ ...init, goat_confinement: "/usr/bin/bwrap" } as never);
    expect(out).not.toContain("No sandbox");
  });
});
