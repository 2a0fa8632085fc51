/**
 * Confinement of the Bash commands the permission engine allows without asking. The engine's analysis
 * of a command line is an allow list, and no allow list can be proven complete against bash; so a line
 * it judged harmless runs where a mistake costs nothing: a read-only line sees the whole filesystem
 * read-only with the secret locations masked (./secret-locations.ts), no network, no Unix sockets,
 * no other process, and an environment without secrets; an edit line (acceptEdits) may also write the
 * working directory and the additional directories, except `.git/` and the other protected names.
 *
 * This is separate from the user's `sandbox` setting (./bash-sandbox.ts), which confines every command
 * the user lets run without asking: confinement is always on where a sandbox can start, and touches
 * only what the engine allowed on its own judgement. Commands the user approved, or allowed by a rule,
 * run as the user's settings say.
 */
import os from "node:os";
import path from "node:path";
import type { ShellLaunch, ShellWrapper } from "./bash-sandbox.js";
import { type BwrapProbe, bwrapArgs, findExecutable, probeBwrap, SANDBOX_STATUS_FD } from "./bwrap.js";
import { protectedMounts } from "./protected-paths.js";
import { existingDirs, privateTempDir, realOrSelf } from "./sandbox-paths.js";
import { SANDBOX_EXEC, seatbeltProfile } from "./seatbelt.js";
import { canFilterUnixSockets, unixSocketFilter } from "./seccomp.js";
import { secretMounts, withoutSecrets } from "./secret-locations.js";

/** How much a confined command may change: nothing, or the allowed directories. */
export type ConfinementLevel = "read-only" | "workspace";

/** Whether confinement can run on this machine, from a check cheap enough for every session start. */
export type ConfinementSupport = { ok: true; launcher: string } | { ok: false; problem: string };

/** Runs auto-allowed Bash commands confined. One per session; the machine check is shared. */
export interface Confinement {
  /**
   * Whether confinement can run here: the launcher is there (bwrap on PATH, sandbox-exec), and, once
   * `check()` has resolved, bubblewrap really made a sandbox; or why not.
   */
  readonly support: ConfinementSupport;
  /**
   * Checks once per process that the sandbox starts here (bubblewrap's namespaces may be refused) and
   * resolves to the result, which `support` then holds. Cheap after the first call.
   */
  check(): Promise<ConfinementSupport>;
  /**
   * The wrapper for a command at `level` starting in `cwd`, or undefined when no sandbox can start
   * here (the first such failure is passed to `onUnavailable`; the command then runs unconfined,
   * with the engine's analysis as the only line, which the session said at start).
   */
  prepare(level: ConfinementLevel, cwd: string): Promise<ShellWrapper | undefined>;
  /** The directories a `workspace` command may write (real paths, existing ones). */
  writableDirs(cwd: string): string[];
}

/** Where confinement looks; all optional. */
export interface ConfinementOptions {
  /** The allowed directories (real paths, working directory first), read at each call. */
  directories?: () => readonly string[];
  /** Files to keep read-only besides the protected names (the start-up files BASH_ENV, ENV name). */
  protectedFiles?: readonly string[];
  /** Told once when the sandbox turns out unable to start although its launcher was found. */
  onUnavailable?: (problem: string) => void;
  /** Default `process.platform`. */
  platform?: NodeJS.Platform;
  /** The PATH bubblewrap is looked up on; default `process.env.PATH`. */
  envPath?: string;
}

/** bwrap's probe, once per process and executable: whether namespaces work is a fact of the machine. */
const probes = new Map<string, Promise<BwrapProbe>>();

/**
 * Builds a session's confinement. Finding the launcher is a few `stat` calls; the real check (can
 * bwrap make namespaces here?) runs once per process, at the first confined command.
 * @example createConfinement({ directories: () => engine.directories })
 */
export function createConfinement(options: ConfinementOptions = {}): Confinement {
  const platform = options.platform ?? process.platform;
  let support = checkSupport(platform, options.envPath);
  let told = false;
  const unavailable = (problem: string): undefined => {
    if (!told) options.onUnavailable?.(problem);
    told = true;
    return undefined;
  };
  const dirsFor = (cwd: string) =>
    existingDirs([realOrSelf(cwd), ...(options.directories?.() ?? [])].map(realOrSelf));

  const probe = (bwrap: string): Promise<BwrapProbe> => {
    if (!probes.has(bwrap)) probes.set(bwrap, probeBwrap(bwrap));
    return probes.get(bwrap) as Promise<BwrapProbe>;
  };

  const prepareLinux = async (level: ConfinementLevel, cwd: string, bwrap: string) => {
    const found = await probe(bwrap);
    if (!found.ok) return unavailable(found.problem);
    if (!canFilterUnixSockets())
      return unavailable(`no Unix-socket filter for the ${process.arch} architecture`);
    const filter = unixSocketFilter();
    const dirs = dirsFor(cwd);
    const wrap: ShellWrapper = (argv, env = process.env): ShellLaunch => {
      const writable = level === "workspace" ? dirs : [];
      // In a writable directory, `.git` is read-only as a whole (auto-allowed git only reads), and
      // so are the names whose content something outside the sandbox later obeys.
      const guarded = level === "workspace" ? protectedMounts(dirs, options.protectedFiles) : undefined;
      return {
        file: bwrap,
        args: bwrapArgs({
          cwd: realOrSelf(cwd),
          writableDirs: writable,
          visibleDirs: level === "read-only" ? dirs : [],
          readOnlyPaths: guarded ? [...guarded.pinned, ...guarded.readOnly] : [],
          pinnedPaths: [],
          masked: secretMounts(homesOf(env), dirs),
          shareNetwork: false,
          seccompOnFd3: true,
          statusFd: SANDBOX_STATUS_FD,
          disableNestedUserns: found.disableNestedUserns,
          argv,
        }),
        fd3: filter,
        statusFd: SANDBOX_STATUS_FD,
        env: withoutSecrets(env),
      };
    };
    return wrap;
  };

  const prepareMac = (level: ConfinementLevel, cwd: string): ShellWrapper => {
    const dirs = dirsFor(cwd);
    const tmp = privateTempDir();
    return (argv, env = process.env) => {
      const secrets = secretMounts(homesOf(env), dirs);
      const profile = seatbeltProfile({
        writableDirs: level === "workspace" ? dirs : [],
        tmpDir: tmp,
        allowLocalBinding: false,
        allowUnixSockets: [],
        allowAllUnixSockets: false,
        protectedFiles: options.protectedFiles,
        deniedReads: [...secrets.dirs, ...secrets.files],
        readOnlyGit: true,
      });
      return {
        file: SANDBOX_EXEC,
        args: ["-p", profile, "/usr/bin/env", `TMPDIR=${tmp}/`, ...argv],
        env: withoutSecrets(env),
      };
    };
  };

  return {
    get support() {
      return support;
    },
    async check() {
      if (!support.ok && platform === "linux") return support;
      if (support.ok && platform === "linux") {
        const found = await probe(support.launcher);
        if (!found.ok) {
          support = {
            ok: false,
            problem: `bubblewrap cannot make a sandbox here, so commands allowed without asking run unconfined: ${found.problem}`,
          };
          told = true; // said by whoever asked for the check
        }
      }
      return support;
    },
    writableDirs: dirsFor,
    async prepare(level, cwd) {
      if (!support.ok) return undefined;
      if (platform === "darwin") return prepareMac(level, cwd);
      return prepareLinux(level, cwd, support.launcher);
    },
  };
}

function checkSupport(platform: NodeJS.Platform, envPath: string | undefined): ConfinementSupport {
  if (platform === "linux") {
    const bwrap = findExecutable("bwrap", envPath ?? process.env.PATH);
    return bwrap
      ? { ok: true, launcher: bwrap }
      : {
          ok: false,
          problem:
            "bubblewrap (bwrap) is not installed, so commands allowed without asking run unconfined (install it: apt-get install bubblewrap, dnf install bubblewrap)",
        };
  }
  if (platform === "darwin") {
    return findExecutable(SANDBOX_EXEC)
      ? { ok: true, launcher: SANDBOX_EXEC }
      : {
          ok: false,
          problem: `${SANDBOX_EXEC} was not found, so commands allowed without asking run unconfined`,
        };
  }
  return {
    ok: false,
    problem: `Goat has no sandbox for ${platform}, so commands allowed without asking run unconfined`,
  };
}

/** The home directories whose secrets to hide: the command's HOME and the user's real one. */
function homesOf(env: Readonly<Record<string, string | undefined>>): string[] {
  const homes = [os.homedir()];
  if (env.HOME && path.isAbsolute(env.HOME)) homes.push(env.HOME);
  return homes.map(realOrSelf);
}
