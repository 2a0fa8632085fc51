/**
 * Files whose change takes effect as code or configuration beyond the edit itself: git's directory
 * (config, hooks: the next `git status` may run them), Goat's and Claude Code's settings (hooks, rules,
 * MCP servers), editors' workspace settings (tasks), `.mcp.json`, and shell start-up files, including
 * the one `BASH_ENV` or `ENV` names (sourced before every Bash call: an edit there is code that the next
 * read-only command runs). The names are shared with the sandbox (src/sandbox/protected-names.ts). A write to
 * one asks even in acceptEdits and even under a bare `Write`/`Edit` allow rule; only a rule that names
 * the path, bypassPermissions, or a person lets it through. Both the path as spelled and where it really
 * lands are checked, case-insensitively (macOS and Windows file systems fold case).
 */
import fs from "node:fs";
import path from "node:path";
import {
  PROTECTED_CONFIG_DIR_NAMES,
  PROTECTED_DIR_NAMES,
  PROTECTED_FILE_NAMES,
} from "../sandbox/protected-names.js";
import type { ResolvedPath } from "./path-scope.js";

const PROTECTED_DIRS = new Set(PROTECTED_DIR_NAMES);
const PROTECTED_FILES = new Set(PROTECTED_FILE_NAMES);
const PROTECTED_CONFIG_DIRS = new Set(PROTECTED_CONFIG_DIR_NAMES);

/**
 * Why writing `target` needs approval even where edits are otherwise accepted, or `undefined`.
 * `startupFiles` are the absolute paths of the shell start-up files the session's environment names.
 * @example protectedPathReason(resolvePath(".git/config", cwd)) // "it is inside .git"
 */
export function protectedPathReason(
  target: ResolvedPath,
  startupFiles: readonly string[] = [],
): string | undefined {
  const named = startupFiles.find((file) => sameFile(file, target.lexical) || sameFile(file, target.real));
  if (named !== undefined) return "the shell runs it before every command (BASH_ENV or ENV names it)";
  return reasonFor(target.lexical) ?? reasonFor(target.real);
}

/** Whether `file` (as the environment names it) and `p` are one path, spelled or resolved. */
function sameFile(file: string, p: string): boolean {
  const fold = (s: string) => s.normalize("NFC").toLowerCase();
  if (fold(file) === fold(p)) return true;
  return fold(realOrParentReal(file)) === fold(p);
}

/** `file`'s real path; for a file not created yet, its directory's real path and its name. */
function realOrParentReal(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    try {
      return path.join(fs.realpathSync(path.dirname(file)), path.basename(file));
    } catch {
      return file;
    }
  }
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
