/**
 * Whether one path a proven Bash command reads or writes may be touched without asking. The path is
 * resolved the way the kernel walks it (kernel-path), and then refused when it lies outside the
 * allowed directories, passes through a symlink in them that leads out, is under /proc (the shell's
 * process there, not ours: `/proc/self/environ` is its environment), names a store of credentials
 * (`~/.ssh`, `~/.aws`, `.netrc`…, which a read-only command would print), holds the home directory
 * (a recursive read of it reaches those), or, for a write, is an allowed directory itself or one
 * holding it (`rm -rf .`).
 */
import os from "node:os";
import path from "node:path";
import { type KernelPath, resolveLikeKernel } from "./kernel-path.js";
import { isInsideDir } from "./path-scope.js";

/** Why a path asks: the words, and the path to show as the blocked one. */
export interface PathRefusal {
  why: string;
  blockedPath?: string;
}

/**
 * Names of files and directories that hold credentials (or the commands typed with them: shell
 * histories), wherever they are, in lower case. Reading one asks even inside the allowed directories:
 * the model would see the key.
 */
// biome-ignore format: a word list reads better packed
const SECRET_NAMES = new Set([
  ".ssh", ".aws", ".gnupg", ".netrc", ".git-credentials", ".pgpass", ".docker", ".kube", ".npmrc", ".pypirc",
  ".azure", ".password-store", ".vault-token", ".my.cnf", ".boto", ".terraformrc", ".bash_history",
  ".zsh_history", ".python_history", ".psql_history", ".mysql_history", ".node_repl_history",
]);
/** Directories under `.config` that hold credentials. */
const SECRET_CONFIG_DIRS = new Set(["gcloud", "gh", "hub", "doctl", "op"]);

/**
 * Judges `p`, as written in a command running in `base`, for `access`. `scopeDirs` are real paths.
 * @example judgeBashPath("dirlink/../x", "/repo", ["/repo"], "read") // refused when dirlink leads out
 */
export function judgeBashPath(
  p: string,
  base: string,
  scopeDirs: readonly string[],
  access: "read" | "write",
): PathRefusal | undefined {
  const resolved = resolveLikeKernel(p, base);
  const verb = access === "read" ? "reads" : "writes";
  if (resolved.loop) return { why: `${verb} ${resolved.lexical}, a path with a symlink loop` };
  if (isInsideDir(resolved.lexical, "/proc") || isInsideDir(resolved.real, "/proc")) {
    return { why: `${verb} ${resolved.lexical}, a process's own files`, blockedPath: resolved.lexical };
  }
  const inScope = (q: string) => scopeDirs.some((d) => isInsideDir(q, d));
  if (!inScope(resolved.real)) {
    return { why: `${verb} ${resolved.real}, outside the allowed directories`, blockedPath: resolved.real };
  }
  const leak = resolved.links.find((l) => inScope(l.at) && !inScope(l.to));
  if (leak) {
    return {
      why: `${verb} ${resolved.lexical} through the symlink ${leak.at}, which leads outside the allowed directories (${leak.to})`,
      blockedPath: leak.to,
    };
  }
  const secret = secretReason(resolved);
  if (secret) return { why: `${verb} ${resolved.real}: ${secret}` };
  if (access === "write" && scopeDirs.some((d) => isInsideDir(d, resolved.real))) {
    return { why: `${verb} ${resolved.real}, an allowed directory itself (or one holding it)` };
  }
  return undefined;
}

/** Why a path holds credentials (or the home directory that holds them), if it does. */
function secretReason(p: KernelPath): string | undefined {
  for (const spelled of [p.lexical, p.real]) {
    const parts = spelled
      .split(path.sep)
      .filter(Boolean)
      .map((s) => s.toLowerCase());
    for (const [i, part] of parts.entries()) {
      if (SECRET_NAMES.has(part)) return `${part} holds credentials`;
      if (part === ".config" && SECRET_CONFIG_DIRS.has(parts[i + 1] ?? ""))
        return `.config/${parts[i + 1]} holds credentials`;
    }
  }
  const home = os.homedir();
  if (isInsideDir(home, p.real) || isInsideDir(home, p.lexical)) {
    return "it holds the home directory, whose key files a recursive read would reach";
  }
  return undefined;
}

/** The real directory a command runs in: `base` resolved, or undefined when it cannot be followed. */
export function realDirectory(dir: string, cwd: string): string {
  return resolveLikeKernel(dir, cwd).real;
}
