/**
 * The sandbox's pure parts: settings validation and merging, excluded-command matching, the bwrap
 * command line, the seccomp program (decoded and run through a small BPF interpreter), and the macOS
 * Seatbelt profile, which can only be checked as text here.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadSettings } from "../../src/cli/settings.js";
import { isExcludedCommand } from "../../src/sandbox/bash-sandbox.js";
import { bwrapArgs } from "../../src/sandbox/bwrap.js";
import { protectedMounts } from "../../src/sandbox/protected-paths.js";
import { quote, seatbeltProfile } from "../../src/sandbox/seatbelt.js";
import { canFilterUnixSockets, unixSocketFilter } from "../../src/sandbox/seccomp.js";
import { mergeSandboxSettings, resolveSandboxSettings } from "../../src/sandbox/settings.js";

describe("sandbox settings", () => {
  it("fills in the SDK's defaults", () => {
    expect(resolveSandboxSettings({ enabled: true })).toEqual({
      enabled: true,
      autoAllowBashIfSandboxed: true,
      excludedCommands: [],
      allowUnsandboxedCommands: true,
      network: { allowLocalBinding: false, allowUnixSockets: [], allowAllUnixSockets: false },
    });
  });

  it("names the field of a bad value", () => {
    expect(() => resolveSandboxSettings({ enabled: "yes" })).toThrow("sandbox.enabled must be true or false");
    expect(() => resolveSandboxSettings({ excludedCommands: "docker" })).toThrow(
      "sandbox.excludedCommands must be a list of non-empty strings",
    );
    expect(() => resolveSandboxSettings({ network: { allowLocalbinding: true } })).toThrow(
      "sandbox.network.allowLocalbinding is not a sandbox network setting",
    );
    expect(() => resolveSandboxSettings({ failIfUnavailable: false })).toThrow(
      /never runs a command unsandboxed/,
    );
    expect(() => resolveSandboxSettings([])).toThrow("sandbox must be an object");
  });

  it("merges settings files field by field, lists concatenated", () => {
    expect(
      mergeSandboxSettings([
        { enabled: true, excludedCommands: ["docker"], network: { allowUnixSockets: ["/a"] } },
        { autoAllowBashIfSandboxed: false, excludedCommands: ["git"], network: { allowLocalBinding: true } },
      ]),
    ).toEqual({
      enabled: true,
      autoAllowBashIfSandboxed: false,
      excludedCommands: ["docker", "git"],
      network: { allowUnixSockets: ["/a"], allowLocalBinding: true },
    });
  });

  it("reads the sandbox key of settings files, and rejects a bad one naming the file", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "goat-sandbox-settings-"));
    try {
      const user = path.join(dir, "user.json");
      const project = path.join(dir, "project.json");
      fs.writeFileSync(user, JSON.stringify({ sandbox: { enabled: true, excludedCommands: ["docker"] } }));
      fs.writeFileSync(project, JSON.stringify({ sandbox: { excludedCommands: ["git"] } }));
      expect(loadSettings([user, project]).sandbox).toEqual({
        enabled: true,
        excludedCommands: ["docker", "git"],
      });
      fs.writeFileSync(project, JSON.stringify({ sandbox: { enabeld: true } }));
      expect(() => loadSettings([user, project])).toThrow(`"sandbox" in settings file ${project}.enabeld`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("excluded commands", () => {
  it("match at a word boundary, with or without :*", () => {
    expect(isExcludedCommand("docker ps", ["docker"])).toBe(true);
    expect(isExcludedCommand("  docker", ["docker:*"])).toBe(true);
    expect(isExcludedCommand("dockerd", ["docker"])).toBe(false);
    expect(isExcludedCommand("npm run build", ["npm run:*"])).toBe(true);
    expect(isExcludedCommand("npm test", ["npm run:*"])).toBe(false);
    expect(isExcludedCommand("echo docker", ["docker"])).toBe(false);
  });
});

describe("the bwrap command line", () => {
  const plan = {
    cwd: "/work/p",
    writableDirs: ["/work/p", "/data/extra"],
    readOnlyPaths: ["/work/p/.git/config", "/work/p/.goat"],
    pinnedPaths: ["/work/p/.git"],
    shareNetwork: false,
    seccompOnFd3: true,
    disableNestedUserns: true,
    argv: ["/bin/bash", "-c", "exec 2>&1; echo hi"],
  };

  it("mounts / read-only first, then /tmp private, then the writable dirs, pins, and read-only paths", () => {
    const args = bwrapArgs(plan);
    const at = (...seq: string[]) => {
      for (let i = 0; i < args.length; i++) if (seq.every((s, j) => args[i + j] === s)) return i;
      return -1;
    };
    const root = at("--ro-bind", "/", "/");
    const tmp = at("--tmpfs", "/tmp");
    const cwd = at("--bind", "/work/p", "/work/p");
    const pin = at("--bind", "/work/p/.git", "/work/p/.git");
    const config = at("--ro-bind", "/work/p/.git/config", "/work/p/.git/config");
    expect([root, tmp, cwd, pin, config].every((i) => i >= 0)).toBe(true);
    expect(root < tmp && tmp < cwd && cwd < pin && pin < config).toBe(true);
    expect(at("--bind", "/data/extra", "/data/extra")).toBeGreaterThan(tmp);
    for (const flag of [
      "--unshare-net",
      "--unshare-pid",
      "--unshare-user",
      "--die-with-parent",
      "--new-session",
    ]) {
      expect(args).toContain(flag);
    }
    expect(at("--cap-drop", "ALL")).toBeGreaterThanOrEqual(0);
    expect(at("--seccomp", "3")).toBeGreaterThanOrEqual(0);
    expect(args.slice(at("--chdir", "/work/p"))).toEqual(["--chdir", "/work/p", "--", ...plan.argv]);
  });

  it("leaves out what the plan does not ask for", () => {
    const args = bwrapArgs({ ...plan, shareNetwork: true, seccompOnFd3: false, disableNestedUserns: false });
    expect(args).not.toContain("--unshare-net");
    expect(args).not.toContain("--seccomp");
    expect(args).not.toContain("--disable-userns");
  });

  it("protects the sensitive paths that exist, pins a .git directory, and leaves a .git file read-only", () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-protected-")));
    const worktree = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-protected-wt-")));
    try {
      fs.mkdirSync(path.join(dir, ".git", "hooks"), { recursive: true });
      fs.writeFileSync(path.join(dir, ".git", "config"), "");
      fs.mkdirSync(path.join(dir, ".goat"));
      fs.writeFileSync(path.join(worktree, ".git"), "gitdir: /elsewhere\n");
      fs.writeFileSync(path.join(worktree, ".bashrc"), "");
      expect(protectedMounts([dir, worktree])).toEqual({
        pinned: [path.join(dir, ".git")],
        readOnly: [
          path.join(dir, ".git", "hooks"),
          path.join(dir, ".git", "config"),
          path.join(dir, ".goat"),
          path.join(worktree, ".git"),
          path.join(worktree, ".bashrc"),
        ],
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(worktree, { recursive: true, force: true });
    }
  });
});

/** Runs a classic BPF program (the subset the filter uses) on one system call. */
function runBpf(prog: Buffer, data: { nr: number; arch: number; arg0: number }): number {
  const word = (off: number) => (off === 0 ? data.nr : off === 4 ? data.arch : off === 16 ? data.arg0 : 0);
  let acc = 0;
  for (let pc = 0; pc < prog.length / 8; ) {
    const code = prog.readUInt16LE(pc * 8);
    const jt = prog.readUInt8(pc * 8 + 2);
    const jf = prog.readUInt8(pc * 8 + 3);
    const k = prog.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) acc = word(k);
    else if (code === 0x15) {
      pc += 1 + (acc >>> 0 === k ? jt : jf);
      continue;
    } else if (code === 0x06) return k;
    else throw new Error(`unexpected opcode ${code}`);
    pc++;
  }
  throw new Error("fell off the end of the program");
}

describe("the Unix-socket seccomp filter", () => {
  const ALLOW = 0x7fff0000;
  const EPERM = 0x00050001;

  it("refuses socket(AF_UNIX) and allows other sockets and calls, on x86-64", () => {
    const prog = unixSocketFilter("x64");
    const x64 = 0xc000003e;
    expect(runBpf(prog, { arch: x64, nr: 41, arg0: 1 })).toBe(EPERM); // socket(AF_UNIX)
    expect(runBpf(prog, { arch: x64, nr: 41, arg0: 2 })).toBe(ALLOW); // socket(AF_INET)
    expect(runBpf(prog, { arch: x64, nr: 41 | 0x40000000, arg0: 1 })).toBe(EPERM); // x32 ABI
    expect(runBpf(prog, { arch: x64, nr: 53, arg0: 1 })).toBe(ALLOW); // socketpair
    expect(runBpf(prog, { arch: x64, nr: 0, arg0: 1 })).toBe(ALLOW); // read
    const i386 = 0x40000003;
    expect(runBpf(prog, { arch: i386, nr: 359, arg0: 1 })).toBe(EPERM);
    expect(runBpf(prog, { arch: i386, nr: 102, arg0: 1 })).toBe(EPERM); // socketcall
    expect(runBpf(prog, { arch: i386, nr: 3, arg0: 1 })).toBe(ALLOW);
    expect(runBpf(prog, { arch: 0x12345678, nr: 3, arg0: 1 })).toBe(EPERM); // unknown ABI
  });

  it("refuses the io_uring calls on every ABI (IORING_OP_SOCKET makes a socket without socket())", () => {
    const x64 = unixSocketFilter("x64");
    for (const nr of [425, 426, 427]) {
      expect(runBpf(x64, { arch: 0xc000003e, nr, arg0: 0 })).toBe(EPERM);
      expect(runBpf(x64, { arch: 0xc000003e, nr: nr | 0x40000000, arg0: 0 })).toBe(EPERM); // x32
      expect(runBpf(x64, { arch: 0x40000003, nr, arg0: 0 })).toBe(EPERM); // i386
    }
    const arm = unixSocketFilter("arm64");
    for (const nr of [425, 426, 427]) {
      expect(runBpf(arm, { arch: 0xc00000b7, nr, arg0: 0 })).toBe(EPERM);
      expect(runBpf(arm, { arch: 0x40000028, nr, arg0: 0 })).toBe(EPERM); // 32-bit ARM
    }
    expect(runBpf(x64, { arch: 0xc000003e, nr: 424, arg0: 0 })).toBe(ALLOW); // pidfd_send_signal
  });

  it("does the same on arm64, and says when it has no table", () => {
    const prog = unixSocketFilter("arm64");
    expect(runBpf(prog, { arch: 0xc00000b7, nr: 198, arg0: 1 })).toBe(EPERM);
    expect(runBpf(prog, { arch: 0xc00000b7, nr: 198, arg0: 10 })).toBe(ALLOW);
    expect(runBpf(prog, { arch: 0x40000028, nr: 281, arg0: 1 })).toBe(EPERM);
    expect(canFilterUnixSockets("riscv64")).toBe(false);
    expect(() => unixSocketFilter("riscv64")).toThrow(/riscv64/);
  });
});

describe("the macOS Seatbelt profile", () => {
  const profile = seatbeltProfile({
    writableDirs: ["/Users/me/project"],
    tmpDir: "/private/var/folders/x/goat-tmp",
    allowLocalBinding: false,
    allowUnixSockets: [],
    allowAllUnixSockets: false,
  });

  it("denies writes except the writable directories and the private temp directory", () => {
    const lines = profile.split("\n");
    const denyAll = lines.indexOf("(deny file-write*)");
    const allow = lines.findIndex((l) => l.startsWith("(allow file-write*"));
    expect(denyAll).toBeGreaterThan(0);
    expect(allow).toBeGreaterThan(denyAll);
    expect(lines[allow]).toContain('(subpath "/Users/me/project")');
    expect(lines[allow]).toContain('(subpath "/private/var/folders/x/goat-tmp")');
  });

  it("keeps protected paths read-only, even ones that do not exist, after the allow", () => {
    const lines = profile.split("\n");
    const guard = lines.findIndex((l) => l.startsWith("(deny file-write* (literal"));
    expect(guard).toBeGreaterThan(lines.findIndex((l) => l.startsWith("(allow file-write*")));
    for (const p of [".git", ".git/hooks", ".goat", ".mcp.json", ".bashrc"]) {
      expect(lines[guard]).toContain(`(literal "/Users/me/project/${p}")`);
    }
  });

  it("confinement: secret locations unreadable, every .git read-only", () => {
    const confined = seatbeltProfile({
      writableDirs: ["/Users/me/project"],
      tmpDir: "/t",
      allowLocalBinding: false,
      allowUnixSockets: [],
      allowAllUnixSockets: false,
      deniedReads: ["/Users/me/.ssh", "/Users/me/.netrc"],
      readOnlyGit: true,
    });
    const lines = confined.split("\n");
    const denyRead = lines.find((l) => l.startsWith("(deny file-read*")) ?? "";
    expect(denyRead).toContain('(subpath "/Users/me/.ssh")');
    expect(denyRead).toContain('(subpath "/Users/me/.netrc")');
    const guard = lines.find((l) => l.startsWith("(deny file-write* (literal")) ?? "";
    expect(guard).toContain('(subpath "/Users/me/project/.git")');
    expect(profile).not.toContain("(deny file-read*");
    expect(profile).not.toContain('(subpath "/Users/me/project/.git")');
  });

  it("has no network unless allowed, and quotes paths safely", () => {
    expect(profile).toContain("(deny network*)");
    expect(profile).not.toContain("(allow network");
    const open = seatbeltProfile({
      writableDirs: ['/tmp/we"ird\\dir'],
      tmpDir: "/t",
      allowLocalBinding: true,
      allowUnixSockets: ["/var/run/x.sock"],
      allowAllUnixSockets: false,
    });
    expect(open).toContain('(allow network-bind (local ip "localhost:*"))');
    expect(open).toContain('(path-literal "/var/run/x.sock")');
    expect(open).toContain('(subpath "/tmp/we\\"ird\\\\dir")');
    expect(() => quote("a\0b")).toThrow(/NUL/);
  });
});
