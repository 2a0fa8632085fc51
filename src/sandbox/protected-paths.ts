/**
 * Paths that stay read-only inside the sandbox even though they lie in a writable directory, because
 * something outside the sandbox later trusts or runs what they hold: git runs hooks and reads
 * `core.fsmonitor`, `core.pager` and aliases from `.git/config`; Goat and Claude Code read hooks, MCP
 * servers and permission rules from `.goat/`, `.claude/` and `.mcp.json`; editors run tasks from
 * `.vscode/` and `.idea/`; shells run their start-up files. A sandboxed command that could rewrite
 * them would escape the next time the user (or an unsandboxed command) runs git or starts a session.
 *
 * Mounts cover the paths that exist when the command starts: bubblewrap needs something to mount
 * over, and creating placeholders would leave litter in the user's project. The ones a command
 * creates are removed when it ends (./protected-sweep.ts).
 */
import path from "node:path";
import { PROTECTED_CONFIG_DIR_NAMES, PROTECTED_DIR_NAMES, PROTECTED_FILE_NAMES } from "./protected-names.js";
import { lstatOrUndefined, realOrUndefined } from "./sandbox-paths.js";

/**
 * Directories and files, relative to each writable directory, that sandboxed commands cannot change:
 * the names the permission engine protects from edits (./protected-names.ts), except that of `.git`
 * only what git obeys is read-only (hooks, config, attributes, commondir, worktree and submodule
 * directories), so commits still work.
 */
export const PROTECTED_RELATIVE_PATHS: readonly string[] = [
  ".git/hooks",
  ".git/config",
  ".git/info/attributes",
  // Also obeyed by git: another repository's directory, per-worktree config, submodules' and linked
  // worktrees' own config and hooks, other object stores.
  ".git/commondir",
  ".git/config.worktree",
  ".git/modules",
  ".git/worktrees",
  ".git/objects/info/alternates",
  ...PROTECTED_DIR_NAMES.filter((name) => name !== ".git"),
  ...PROTECTED_FILE_NAMES,
  ...PROTECTED_CONFIG_DIR_NAMES.map((name) => `.config/${name}`),
];

/** The mounts that protect a writable directory's sensitive paths. */
export interface ProtectedMounts {
  /** Bound read-only over themselves. */
  readOnly: string[];
  /**
   * Bound read-write over themselves: the contents stay writable, but the path becomes a mount point,
   * which cannot be renamed or removed. That pins `.git` in place, so a command cannot move the
   * repository aside and put one with its own hooks and config in its place.
   */
  pinned: string[];
}

/**
 * The protected paths that exist under the writable directories (absolute paths). A `.git` file (a
 * worktree's pointer to its repository) is read-only: rewritten, it could point git at a directory
 * of the command's making. For a symlink, its target is protected when it exists; the link itself
 * could still be replaced, which only matters if its directory is writable.
 */
export function protectedMounts(
  writableDirs: readonly string[],
  extraFiles: readonly string[] = [],
): ProtectedMounts {
  const readOnly: string[] = [];
  const pinned: string[] = [];
  for (const dir of writableDirs) {
    const git = path.join(dir, ".git");
    const gitStat = lstatOrUndefined(git);
    if (gitStat?.isDirectory()) pinned.push(git);
    else if (gitStat?.isFile()) readOnly.push(git);
    for (const rel of PROTECTED_RELATIVE_PATHS) {
      const p = path.join(dir, rel);
      const st = lstatOrUndefined(p);
      if (!st) continue;
      if (!st.isSymbolicLink()) readOnly.push(p);
      else {
        const target = realOrUndefined(p);
        if (target) readOnly.push(target);
      }
    }
  }
  for (const file of extraFiles) {
    const real = realOrUndefined(file);
    if (real && writableDirs.some((dir) => real.startsWith(`${dir}${path.sep}`))) readOnly.push(real);
  }
  return { readOnly, pinned };
}
