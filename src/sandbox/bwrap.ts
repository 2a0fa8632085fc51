/**
 * The Linux sandbox: the bubblewrap (`bwrap`) command line that runs a shell with the whole filesystem
 * read-only except the writable directories and a private `/tmp`, in new user, PID, IPC and (unless
 * the network is allowed) network namespaces, with every capability dropped, and torn down with the
 * call: bwrap's child is PID 1 of the sandbox's PID namespace, so when the shell exits, or bwrap is
 * killed, or Goat dies (`--die-with-parent`), the kernel kills every process left in it.
 */
import { spawn } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";
import { lstatOrUndefined } from "./sandbox-paths.js";

/** The descriptor bubblewrap reports its sandbox's init on (after fd 3, the seccomp program). */
export const SANDBOX_STATUS_FD = 4;

/** What one sandboxed launch needs, all paths absolute and real. */
export interface BwrapPlan {
  /** Where the command starts. */
  cwd: string;
  /** Directories bound read-write (existing ones only: bwrap fails on a missing source). */
  writableDirs: readonly string[];
  /**
   * Directories bound again read-only after the private `/tmp` is mounted, so a working directory
   * under `/tmp` stays visible to a command that may not write it. Default none.
   */
  visibleDirs?: readonly string[];
  /** Directories hidden behind an empty tmpfs, and files behind /dev/null (secret locations). */
  masked?: { dirs: readonly string[]; files: readonly string[] };
  /** Existing paths inside the writable directories that stay read-only (see protected-paths.ts). */
  readOnlyPaths: readonly string[];
  /** Existing paths bound over themselves read-write, so they cannot be moved or removed. */
  pinnedPaths: readonly string[];
  /** Keep the host's network namespace (false: a private one with only a loopback interface). */
  shareNetwork: boolean;
  /** Load a seccomp program from fd 3 (the Unix-socket filter). */
  seccompOnFd3: boolean;
  /**
   * Where bwrap writes its JSON status lines (`child-pid`: the sandbox's init, in our pid namespace).
   * The init outlives the command by the moment it takes to kill what the command left running.
   */
  statusFd?: number;
  /** bwrap supports `--disable-userns` (0.8.0 and later): no nested user namespaces inside. */
  disableNestedUserns: boolean;
  /** The shell and its arguments, run inside. */
  argv: readonly string[];
}

/** The bwrap arguments for a plan (everything after the executable's name). */
export function bwrapArgs(plan: BwrapPlan): string[] {
  const args = [
    // A new session: the command cannot push keystrokes into Goat's terminal (TIOCSTI).
    "--new-session",
    "--die-with-parent",
    // Root outside stays uid 0 inside but only within the new user namespace, where it cannot undo
    // the read-only mounts; capabilities are dropped as well.
    "--unshare-user",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
  ];
  if (!plan.shareNetwork) args.push("--unshare-net");
  if (plan.disableNestedUserns) args.push("--disable-userns");
  args.push("--cap-drop", "ALL");
  args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc");
  // A private /tmp (and shared-memory directory), empty at start and gone at the end.
  args.push("--tmpfs", "/tmp", "--tmpfs", "/dev/shm");
  if (isRealDirectory("/var/tmp")) args.push("--tmpfs", "/var/tmp");
  for (const dir of plan.writableDirs) args.push("--bind", dir, dir);
  for (const dir of plan.visibleDirs ?? []) args.push("--ro-bind", dir, dir);
  for (const p of plan.pinnedPaths) args.push("--bind", p, p);
  // After the pins: a read-only path inside a pinned one (.git/hooks inside .git) must come later.
  for (const p of plan.readOnlyPaths) args.push("--ro-bind", p, p);
  // Last, so no later bind uncovers them.
  for (const dir of plan.masked?.dirs ?? []) args.push("--tmpfs", dir, "--remount-ro", dir);
  for (const file of plan.masked?.files ?? []) args.push("--ro-bind", "/dev/null", file);
  if (plan.seccompOnFd3) args.push("--seccomp", "3");
  if (plan.statusFd !== undefined) args.push("--json-status-fd", String(plan.statusFd));
  args.push("--setenv", "TMPDIR", "/tmp", "--chdir", plan.cwd, "--", ...plan.argv);
  return args;
}

/** Finds an executable: a path as given, or a bare name on PATH. Undefined when there is none. */
export function findExecutable(
  name: string,
  envPath: string | undefined = process.env.PATH,
): string | undefined {
  const candidates = name.includes(path.sep)
    ? [path.resolve(name)]
    : (envPath ?? "")
        .split(path.delimiter)
        .filter((dir) => dir !== "")
        .map((dir) => path.join(dir, name));
  for (const candidate of candidates) {
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** What a probe of bwrap found: it works (and which optional flags it has), or why not. */
export type BwrapProbe = { ok: true; disableNestedUserns: boolean } | { ok: false; problem: string };

/**
 * Checks once that bwrap can really build a sandbox here (user namespaces may be disabled for
 * unprivileged users), by running `true` in the smallest sandbox of the same kind.
 */
export async function probeBwrap(bwrap: string): Promise<BwrapProbe> {
  const version = await runQuiet(bwrap, ["--version"]);
  if (version.code !== 0) return { ok: false, problem: `${bwrap} --version failed: ${version.output}` };
  const m = /(\d+)\.(\d+)/.exec(version.output);
  const disableNestedUserns = m !== null && (Number(m[1]) > 0 || Number(m[2]) >= 8);
  const trial = await runQuiet(bwrap, [
    "--unshare-user",
    "--unshare-pid",
    "--unshare-net",
    "--die-with-parent",
    ...(disableNestedUserns ? ["--disable-userns"] : []),
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--",
    "true",
  ]);
  if (trial.code !== 0) {
    return {
      ok: false,
      problem:
        `bwrap could not create a sandbox: ${trial.output || `exit code ${trial.code}`}. ` +
        "Unprivileged user namespaces may be disabled: enable them (sysctl kernel.unprivileged_userns_clone=1; " +
        "on Ubuntu 24.04 and later also kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile for bwrap)",
    };
  }
  return { ok: true, disableNestedUserns };
}

function isRealDirectory(p: string): boolean {
  return lstatOrUndefined(p)?.isDirectory() === true;
}

function runQuiet(file: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.stderr.on("data", (c: Buffer) => chunks.push(c));
    child.on("error", (err) => resolve({ code: -1, output: err.message }));
    child.on("close", (code) =>
      resolve({ code: code ?? -1, output: Buffer.concat(chunks).toString("utf8").trim() }),
    );
  });
}
