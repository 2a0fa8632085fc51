/**
 * The half of protecting paths that a mount cannot do. Bubblewrap can keep an EXISTING file or
 * directory read-only by mounting it over itself, but it needs something to mount over, and making a
 * placeholder would litter the user's project. So a sandboxed command could create a protected name
 * that did not exist yet: `.git/commondir` or `.git/config.worktree` (git obeys them on the user's
 * next `git`), a `.git/hooks/` that was missing, `.claude/settings.json`, `.mcp.json`, `.envrc`.
 *
 * Before a sandboxed command starts, the missing protected paths of each writable directory are
 * noted; when every process of the sandbox is gone (its PID namespace ended), any of them that now
 * exists was made by the command, and is removed. The command is told what was removed and why.
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { PROTECTED_RELATIVE_PATHS } from "./protected-paths.js";
import { lstatOrUndefined } from "./sandbox-paths.js";

/** What was missing before a command ran, per writable directory. */
export interface MissingProtectedPaths {
  readonly paths: readonly string[];
}

/**
 * The protected paths (./protected-paths.ts) missing under the writable
 * directories now. Only inside an existing `.git` directory for the `.git/…` names: a repository
 * the command creates from nothing is its own (`git init` in the sandbox works).
 */
export function missingProtectedPaths(writableDirs: readonly string[]): MissingProtectedPaths {
  const paths: string[] = [];
  for (const dir of writableDirs) {
    const hasGitDir = kindOf(path.join(dir, ".git")) === "dir";
    for (const rel of PROTECTED_RELATIVE_PATHS) {
      if (rel.startsWith(".git/") && !hasGitDir) continue;
      const p = path.join(dir, rel);
      if (kindOf(p) === undefined) paths.push(p);
    }
  }
  return { paths };
}

/**
 * Removes the paths of `before` that exist now (made by the command that ran in between) and
 * returns them. Call only once every process of the sandbox is gone.
 */
export function removeCreatedProtectedPaths(before: MissingProtectedPaths): string[] {
  const removed: string[] = [];
  for (const p of before.paths) {
    if (kindOf(p) === undefined) continue;
    try {
      rmSync(p, { recursive: true, force: true });
      removed.push(p);
    } catch {
      // Left in place; still reported, so the user learns of it.
      removed.push(`${p} (could not be removed)`);
    }
  }
  return removed;
}

/** The note a command's result gets when the sweep removed something. */
export function sweepNote(removed: readonly string[]): string {
  return `(Removed ${removed.join(", ")}: created by the sandboxed command, but these paths configure git, Goat, editors or the shell, which the sandbox keeps read-only.)`;
}

function kindOf(p: string): "dir" | "other" | undefined {
  const st = lstatOrUndefined(p);
  return st === undefined ? undefined : st.isDirectory() ? "dir" : "other";
}
