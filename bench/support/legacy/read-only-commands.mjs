/**
 * Baseline only: the compiled src/permissions/read-only-commands.ts as it was before Bash lines were read with a bash grammar
 * (commit a27ca7e), kept so bench/permission-check.mjs can compare the old and new checks in one run.
 * Not used by Goat, and not safe: it is what issue 11 replaced.
 */
/** Commands that never change anything, whatever their arguments. */
// biome-ignore format: a word list reads better packed
const ALWAYS_READ_ONLY = new Set([
    "ls", "cat", "head", "wc", "pwd", "echo", "printf", "grep", "egrep", "fgrep", "rg", "which", "stat",
    "file", "du", "df", "tree", "basename", "dirname", "realpath", "readlink", "whoami", "date", "uname",
    "true", "false", "uniq", "cut", "diff", "cmp", "type", "id", "hostname", "nproc", "cd", "test", "[",
    "comm", "md5sum", "sha1sum", "sha256sum", "column", "nl", "tac", "rev", "seq", "jq",
]);
/** `find` actions that run or delete things. */
const FIND_UNSAFE = new Set([
  "-exec",
  "-execdir",
  "-ok",
  "-okdir",
  "-delete",
  "-fprint",
  "-fprint0",
  "-fprintf",
  "-fls",
]);
/** git subcommands that only read the repository. */
const GIT_READ_ONLY = new Set([
  "status",
  "log",
  "diff",
  "show",
  "branch",
  "rev-parse",
  "ls-files",
  "blame",
  "describe",
  "remote",
  "tag",
]);
/** `git branch` / `git tag` / `git remote` flags that only list. */
const GIT_LIST_FLAGS = new Set([
  "-a",
  "-r",
  "-l",
  "--list",
  "-v",
  "-vv",
  "--all",
  "--remotes",
  "--show-current",
  "--contains",
  "--merged",
  "--no-merged",
  "-n",
]);
/** Plain file commands `acceptEdits` allows when every path they name is inside the allowed directories. */
export const ACCEPT_EDITS_COMMANDS = new Set(["mkdir", "touch", "rm", "rmdir", "mv", "cp", "sed"]);
/**
 * True when the command only reads: a known read-only program, with no argument that makes it write
 * or run something else, and no `>` redirection into a file.
 * @example isReadOnlyCommand(split("git status")) // true; "git push", "ls > out" and "tail -f x" are not
 */
export function isReadOnlyCommand(cmd) {
  if (cmd.writtenFiles.length > 0 || cmd.argv.length === 0) return false;
  // `FOO=1 ls` could set LD_PRELOAD or PATH; only bare commands count as read-only.
  if (cmd.text !== cmd.commandText) return false;
  const [program, ...args] = cmd.argv;
  if (ALWAYS_READ_ONLY.has(program)) return true;
  switch (program) {
    case "tail":
      // `tail -f` never ends; Claude Code asks for it too.
      return !args.some(
        (a) => a === "-f" || a === "-F" || a.startsWith("--follow") || /^-[a-zA-Z]*[fF]/.test(a),
      );
    case "find":
      return !args.some((a) => FIND_UNSAFE.has(a));
    case "sort":
      return !args.some((a) => a === "-o" || a.startsWith("--output") || /^-[a-zA-Z]*o/.test(a));
    case "git":
      return isReadOnlyGit(args);
    default:
      return false;
  }
}
function isReadOnlyGit(args) {
  // Global options like `-C dir` or `-c key=value` could point git anywhere or reconfigure it.
  const [sub, ...rest] = args;
  if (sub === undefined || !GIT_READ_ONLY.has(sub)) return false;
  if (sub === "branch" || sub === "tag" || sub === "remote") {
    // Listing only: `git branch -D x`, `git tag v1` or `git remote add` change things.
    if (sub === "remote") return rest.every((a) => a === "-v" || a === "--verbose");
    return rest.every((a) => GIT_LIST_FLAGS.has(a));
  }
  // `git diff --output=file` and `--ext-diff` write or run something.
  return !rest.some((a) => a.startsWith("--output") || a === "--ext-diff" || a.startsWith("--exec"));
}
/**
 * The paths an acceptEdits-style file command touches, or `undefined` when it is not one of them.
 * For `sed` the script is skipped; `sed` without `-i` only prints and so is harmless anyway.
 */
export function fileCommandPaths(cmd) {
  if (cmd.text !== cmd.commandText) return undefined;
  const [program, ...args] = cmd.argv;
  if (!ACCEPT_EDITS_COMMANDS.has(program)) return undefined;
  // A flag carrying a value (`--target-directory=/etc`, `-t/etc`) could name a path we would not see.
  if (args.some((a) => a.startsWith("-") && !/^(-[a-zA-Z]+|--[a-z-]+|--?)$/.test(a))) return undefined;
  let operands = args.filter((a) => !a.startsWith("-"));
  if (program === "sed" && !args.some((a) => a === "-e" || a.startsWith("--expression") || a === "-f")) {
    operands = operands.slice(1);
  }
  const paths = [...operands, ...cmd.writtenFiles];
  // `$HOME/x`, `$(pwd)/x` or `~other/x` are expanded by the shell to places we cannot see from here.
  if (paths.some((p) => /[$`]/.test(p) || /^~[^/]/.test(p))) return undefined;
  return paths;
}
