/**
 * A session's sandbox for Bash: decides which calls run inside it (all but `excludedCommands` and, when
 * allowed, calls that ask to run outside), checks once that it can start on this machine, and turns a
 * shell's argv into the command line that runs it confined (bubblewrap on Linux, sandbox-exec on macOS).
 *
 * Written for Goat rather than taken from `@anthropic-ai/sandbox-runtime`: that package is a
 * process-wide singleton (Goat runs several sessions, each with its own directories, in one process),
 * ships prebuilt binaries (a seccomp helper, a Windows executable) and brings a second zod, node-forge
 * and a SOCKS server. What Goat needs from it is a bubblewrap command line and a seccomp program.
 */
import { type BwrapProbe, bwrapArgs, findExecutable, probeBwrap, SANDBOX_STATUS_FD } from "./bwrap.js";
import { SandboxUnavailableError } from "./errors.js";
import { protectedMounts } from "./protected-paths.js";
import { existingDirs, privateTempDir, realOrSelf } from "./sandbox-paths.js";
import { SANDBOX_EXEC, seatbeltProfile } from "./seatbelt.js";
import { canFilterUnixSockets, unixSocketFilter } from "./seccomp.js";
import { type ResolvedSandboxSettings, resolveSandboxSettings, type SandboxSettings } from "./settings.js";

/** The program to start in place of the shell, and bytes to write to its fd 3 (a seccomp program). */
export interface ShellLaunch {
  file: string;
  args: string[];
  fd3?: Buffer;
  /**
   * The file descriptor (3 or more) on which the launcher writes JSON status lines; its `child-pid`
   * is the sandbox's init, whose end means every process in the sandbox is gone.
   */
  statusFd?: number;
  /** The environment to start it with, when it differs from the command's (secrets left out). */
  env?: Record<string, string | undefined>;
}

/**
 * Turns a shell's argv (`bash -c …`) and the environment it would get into what to spawn instead.
 */
export type ShellWrapper = (
  shellArgv: readonly string[],
  env?: Readonly<Record<string, string | undefined>>,
) => ShellLaunch;

/** The sandbox of one session's Bash tool. */
export interface BashSandbox {
  readonly settings: ResolvedSandboxSettings;
  /** Whether this Bash input runs inside the sandbox. */
  runsSandboxed(input: Readonly<Record<string, unknown>>): boolean;
  /** Whether the permission engine may allow this Bash input without asking. */
  autoAllows(input: Readonly<Record<string, unknown>>): boolean;
  /**
   * Checks the sandbox can start (once per session, again after a failure) and returns the wrapper for
   * a command starting in `cwd`. Rejects with SandboxUnavailableError.
   */
  prepare(cwd: string): Promise<ShellWrapper>;
  /** The directories sandboxed commands may write, for messages (real paths). */
  writableDirs(cwd: string): string[];
}

/** Where the sandbox looks; all optional. */
export interface BashSandboxOptions {
  /** The allowed directories (real paths), read at each call; default: only the call's cwd. */
  directories?: () => readonly string[];
  /**
   * Files to keep read-only besides the protected names, when they lie in a writable directory (the
   * shell start-up files the session's environment names: BASH_ENV, ENV).
   */
  protectedFiles?: readonly string[];
  /** Default `process.platform`. */
  platform?: NodeJS.Platform;
  /** The PATH bubblewrap is looked up on; default `process.env.PATH`. */
  envPath?: string;
}

/**
 * Builds a session's sandbox. Throws SandboxSettingsError for settings that cannot be used.
 * @example createBashSandbox({ enabled: true, excludedCommands: ["docker"] }, { directories: () => [cwd] })
 */
export function createBashSandbox(settings: SandboxSettings, options: BashSandboxOptions = {}): BashSandbox {
  const resolved = resolveSandboxSettings(settings);
  const platform = options.platform ?? process.platform;
  let probe: Promise<BwrapProbe> | undefined;

  const runsSandboxed = (input: Readonly<Record<string, unknown>>): boolean => {
    if (!resolved.enabled) return false;
    if (input.dangerouslyDisableSandbox === true && resolved.allowUnsandboxedCommands) return false;
    const command = typeof input.command === "string" ? input.command : "";
    return !isExcludedCommand(command, resolved.excludedCommands);
  };

  const writableDirs = (cwd: string): string[] =>
    existingDirs([realOrSelf(cwd), ...(options.directories?.() ?? [])]);

  const prepareLinux = async (cwd: string): Promise<ShellWrapper> => {
    const wanted = resolved.bwrapPath ?? "bwrap";
    const bwrap = findExecutable(wanted, options.envPath ?? process.env.PATH);
    if (!bwrap) {
      throw new SandboxUnavailableError(
        resolved.bwrapPath
          ? `sandbox.bwrapPath ${resolved.bwrapPath} is not an executable file`
          : "bubblewrap (bwrap) is not installed or not on PATH; install it (Debian and Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) or turn the sandbox off",
      );
    }
    probe ??= probeBwrap(bwrap);
    const found = await probe;
    if (!found.ok) {
      probe = undefined; // checked again next time: the user may fix it mid-session
      throw new SandboxUnavailableError(found.problem);
    }
    let filter: Buffer | undefined;
    if (!resolved.network.allowAllUnixSockets) {
      if (!canFilterUnixSockets()) {
        throw new SandboxUnavailableError(
          `Goat has no Unix-socket filter for the ${process.arch} architecture; set sandbox.network.allowAllUnixSockets to true to run without one`,
        );
      }
      filter = unixSocketFilter();
    }
    const dirs = writableDirs(cwd);
    const mounts = protectedMounts(dirs, options.protectedFiles);
    return (argv) => ({
      file: bwrap,
      args: bwrapArgs({
        cwd: realOrSelf(cwd),
        writableDirs: dirs,
        readOnlyPaths: mounts.readOnly,
        pinnedPaths: mounts.pinned,
        shareNetwork: false,
        seccompOnFd3: filter !== undefined,
        statusFd: SANDBOX_STATUS_FD,
        disableNestedUserns: found.disableNestedUserns,
        argv,
      }),
      fd3: filter,
      statusFd: SANDBOX_STATUS_FD,
    });
  };

  const prepareMac = async (cwd: string): Promise<ShellWrapper> => {
    if (!findExecutable(SANDBOX_EXEC)) {
      throw new SandboxUnavailableError(`${SANDBOX_EXEC} was not found`);
    }
    const profile = seatbeltProfile({
      writableDirs: writableDirs(cwd),
      tmpDir: privateTempDir(),
      allowLocalBinding: resolved.network.allowLocalBinding,
      allowUnixSockets: resolved.network.allowUnixSockets,
      allowAllUnixSockets: resolved.network.allowAllUnixSockets,
      protectedFiles: options.protectedFiles,
    });
    const tmp = privateTempDir();
    return (argv) => ({
      file: SANDBOX_EXEC,
      args: ["-p", profile, "/usr/bin/env", `TMPDIR=${tmp}/`, ...argv],
    });
  };

  return {
    settings: resolved,
    runsSandboxed,
    autoAllows: (input) => resolved.autoAllowBashIfSandboxed && runsSandboxed(input),
    writableDirs,
    async prepare(cwd) {
      if (platform === "linux") return prepareLinux(cwd);
      if (platform === "darwin") return prepareMac(cwd);
      throw new SandboxUnavailableError(
        `the sandbox is unavailable on this platform (${platform}); Goat sandboxes Bash with bubblewrap on Linux and sandbox-exec on macOS`,
      );
    },
  };
}

/**
 * True when the command line starts with one of the excluded commands, at a word boundary: `"docker"`
 * and `"docker:*"` both match `docker` and `docker ps`, not `dockerd`.
 */
export function isExcludedCommand(command: string, excluded: readonly string[]): boolean {
  const line = command.trim();
  return excluded.some((pattern) => {
    const prefix = (pattern.endsWith(":*") ? pattern.slice(0, -2) : pattern).trim();
    if (prefix === "") return false;
    return line === prefix || (line.startsWith(prefix) && /\s/.test(line[prefix.length] ?? ""));
  });
}
