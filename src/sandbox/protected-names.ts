/**
 * The names of files and directories whose change takes effect beyond the write itself: git's
 * directory (config and hooks run on the next `git status`), Goat's and Claude Code's settings (hooks,
 * rules, MCP servers), editors' workspace settings (tasks), `.mcp.json`, and shell start-up files.
 * One list for both guards that use it: the permission engine (a write asks even in acceptEdits,
 * src/permissions/protected-paths.ts) and the sandbox (mounted read-only, ./protected-paths.ts).
 */
import path from "node:path";

/** Directories whose whole content is protected, wherever they appear. */
export const PROTECTED_DIR_NAMES: readonly string[] = [".git", ".goat", ".claude", ".vscode", ".idea"];

/** File names that are protected wherever they appear. */
// biome-ignore format: a word list reads better packed
export const PROTECTED_FILE_NAMES: readonly string[] = [
  ".mcp.json", ".claude.json", ".gitconfig", ".gitmodules", ".ripgreprc", ".envrc", ".bashrc", ".bash_profile",
  ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".kshrc",
  ".cshrc", ".tcshrc", ".inputrc",
];

/** Directories under `.config` that are protected (git's and fish's own config, read at start-up). */
export const PROTECTED_CONFIG_DIR_NAMES: readonly string[] = ["git", "fish"];

/**
 * Environment variables that name a file the shell runs before every command: a non-interactive
 * `bash -c` (how Bash runs each call) sources `$BASH_ENV`, and `sh` in POSIX mode sources `$ENV`.
 */
const STARTUP_FILE_VARIABLES: readonly string[] = ["BASH_ENV", "ENV"];

/**
 * The absolute paths of the start-up files `env` names (relative ones resolved against `cwd`, where
 * Bash runs). A value the shell would expand (`$HOME/x`, `` `cmd` ``) cannot be known ahead and is
 * skipped: it was the user's own setting, and nothing the model writes can change which file it names.
 * @example startupFilesNamedBy({ BASH_ENV: "./env.sh" }, "/repo") // ["/repo/env.sh"]
 */
export function startupFilesNamedBy(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): string[] {
  const files: string[] = [];
  for (const name of STARTUP_FILE_VARIABLES) {
    const value = env[name];
    if (!value || /[$`]/.test(value)) continue;
    files.push(path.resolve(cwd, value));
  }
  return files;
}
