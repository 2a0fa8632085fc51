/**
 * The macOS sandbox: a Seatbelt profile for `/usr/bin/sandbox-exec` with the same promise as the Linux
 * one where macOS can keep it: writes only in the writable directories and a private temporary
 * directory, the protected paths read-only even when they do not exist yet, no network. What it cannot
 * do: there is no PID namespace, so a process that leaves the command's process group survives it.
 *
 * Built as text by a pure function so its logic is tested on any platform; running it is macOS only.
 */
import path from "node:path";
import { PROTECTED_RELATIVE_PATHS } from "./protected-paths.js";

/** The path of Apple's sandbox launcher. */
export const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

/** What the profile allows. Paths absolute and real (`/private/tmp`, not `/tmp`). */
export interface SeatbeltPlan {
  writableDirs: readonly string[];
  /** The command's own temporary directory (its TMPDIR). */
  tmpDir: string;
  allowLocalBinding: boolean;
  allowUnixSockets: readonly string[];
  allowAllUnixSockets: boolean;
  /** More files kept read-only, existing or not (the shell start-up files BASH_ENV and ENV name). */
  protectedFiles?: readonly string[];
  /** Files and directories that cannot be read at all (secret locations). */
  deniedReads?: readonly string[];
  /** Keep every `.git` under the writable directories read-only, not only its hooks and config. */
  readOnlyGit?: boolean;
}

/** The Seatbelt profile text for a plan. */
export function seatbeltProfile(plan: SeatbeltPlan): string {
  const writable = [...plan.writableDirs, plan.tmpDir].map((d) => `(subpath ${quote(d)})`);
  const devices = ["/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/dtracehelper"].map(
    (d) => `(literal ${quote(d)})`,
  );
  const lines = [
    "(version 1)",
    "(allow default)",
    "; Writes: only the writable directories, the private temp directory and harmless devices.",
    "(deny file-write*)",
    `(allow file-write* ${[...writable, ...devices, '(regex #"^/dev/tty")', '(subpath "/dev/fd")'].join(" ")})`,
  ];
  const guarded = plan.writableDirs.flatMap((dir) => [
    // The .git entry itself: it cannot be moved aside and replaced by a repository with other hooks.
    `(literal ${quote(path.join(dir, ".git"))})`,
    ...(plan.readOnlyGit ? [`(subpath ${quote(path.join(dir, ".git"))})`] : []),
    ...PROTECTED_RELATIVE_PATHS.flatMap((rel) => {
      const p = path.join(dir, rel);
      return [`(literal ${quote(p)})`, `(subpath ${quote(p)})`];
    }),
  ]);
  for (const file of plan.protectedFiles ?? []) guarded.push(`(literal ${quote(file)})`);
  if (guarded.length > 0) {
    lines.push("; Files that programs outside the sandbox trust stay read-only, existing or not.");
    // Later rules win in SBPL, so this deny overrides the writable directories above.
    lines.push(`(deny file-write* ${guarded.join(" ")})`);
  }
  if (plan.deniedReads && plan.deniedReads.length > 0) {
    lines.push("; Secret locations cannot be read.");
    lines.push(`(deny file-read* ${plan.deniedReads.map((p) => `(subpath ${quote(p)})`).join(" ")})`);
  }
  lines.push("; Network: none, unless allowed below.", "(deny network*)");
  if (plan.allowAllUnixSockets) {
    lines.push("(allow network* (remote unix-socket))", "(allow network-bind (local unix-socket))");
  } else {
    for (const socket of plan.allowUnixSockets) {
      lines.push(`(allow network-outbound (remote unix-socket (path-literal ${quote(socket)})))`);
    }
  }
  if (plan.allowLocalBinding) {
    lines.push(
      '(allow network-bind (local ip "localhost:*"))',
      '(allow network-inbound (local ip "localhost:*"))',
      '(allow network-outbound (remote ip "localhost:*"))',
    );
  }
  return `${lines.join("\n")}\n`;
}

/** A string literal in SBPL: double quotes, with backslash and quote escaped. */
export function quote(text: string): string {
  if (text.includes("\0")) throw new Error("a sandbox path cannot contain a NUL byte");
  return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}
