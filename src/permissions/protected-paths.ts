/**
 * Files whose change takes effect as code or configuration beyond the edit itself: git's directory
 * (config, hooks: the next `git status` may run them), Goat's and Claude Code's settings (hooks, rules,
 * MCP servers), editors' workspace settings (tasks), `.mcp.json`, and shell start-up files. A write to
 * one asks even in acceptEdits and even under a bare `Write`/`Edit` allow rule; only a rule that names
 * the path, bypassPermissions, or a person lets it through. Both the path as spelled and where it really
 * lands are checked, case-insensitively (macOS and Windows file systems fold case).
 */
import path from "node:path";
import type { ResolvedPath } from "./path-scope.js";

/** Directories whose whole content is protected, wherever they appear. */
const PROTECTED_DIRS = new Set([".git", ".goat", ".claude", ".vscode", ".idea"]);

/** File names that are protected wherever they appear. */
// biome-ignore format: a word list reads better packed
const PROTECTED_FILES = new Set([
  ".mcp.json", ".claude.json", ".gitconfig", ".gitmodules", ".ripgreprc", ".envrc", ".bashrc", ".bash_profile",
  ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".kshrc",
  ".cshrc", ".tcshrc", ".inputrc",
]);

/** Protected directories under `.config` (git's and fish's own config, read at start-up). */
const PROTECTED_CONFIG_DIRS = new Set(["git", "fish"]);

/**
 * Why writing `target` needs approval even where edits are otherwise accepted, or `undefined`.
 * @example protectedPathReason(resolvePath(".git/config", cwd)) // "it is inside .git"
 */
export function protectedPathReason(target: ResolvedPath): string | undefined {
  return reasonFor(target.lexical) ?? reasonFor(target.real);
}

function reasonFor(p: string): string | undefined {
  const parts = p
    .split(path.sep)
    .filter(Boolean)
    .map((part) => part.normalize("NFC").toLowerCase());
  for (const [i, part] of parts.entries()) {
    if (PROTECTED_DIRS.has(part)) return `it is inside ${part}`;
    if (part === ".config" && PROTECTED_CONFIG_DIRS.has(parts[i + 1] ?? ""))
      return `it is inside .config/${parts[i + 1]}`;
  }
  const name = parts.at(-1);
  if (name !== undefined && PROTECTED_FILES.has(name)) return `${name} is a protected file`;
  return undefined;
}
