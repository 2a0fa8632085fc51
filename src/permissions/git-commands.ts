/**
 * When `git` runs without asking. Two questions: do the arguments only read (a listed subcommand with
 * listed flags, no global options but `--no-pager`), and is the repository one the agent cannot have
 * booby-trapped? Git runs programs named in its config (`core.fsmonitor` on every `git status`,
 * `core.pager`, `diff.external`, textconv and filter drivers, `core.hooksPath`, the hooks a status's
 * index refresh triggers), so a read-only git command is only as safe as that config. The answer here:
 * writes to `.git/` always ask (protected-paths), and on top of that the repository's own config is
 * read before each auto-allowed call and any key that can run a program, redirect the work tree or
 * include another file makes git ask too. The repository must be found where the agent cannot plant
 * one (a `.git` at or above the working directory, not a bare-looking directory in scope), and its
 * top must lie inside the allowed directories, since `git log -p` shows every file of the repository.
 */
import fs from "node:fs";
import path from "node:path";
import { isInsideDir } from "./path-scope.js";

/** A word list written as one string, so it stays packed: `words("a b")` is `["a", "b"]`. */
const words = (list: string): string[] => list.split(/\s+/).filter(Boolean);

/** Flags of `git log`/`show`/`diff` without a value (`--oneline`) or with an optional `=value`. */
// biome-ignore format: a word list reads better packed
const LOG_FLAGS = new Set([
  "oneline", "stat", "shortstat", "numstat", "name-only", "name-status", "graph", "decorate", "no-decorate",
  "all", "branches", "tags", "remotes", "first-parent", "merges", "no-merges", "reverse", "patch", "no-patch",
  "raw", "abbrev-commit", "no-abbrev-commit", "abbrev", "full-index", "color", "no-color", "word-diff",
  "cached", "staged", "summary", "compact-summary", "dirstat", "follow", "no-renames", "find-renames",
  "find-copies", "ignore-all-space", "ignore-space-change", "ignore-blank-lines", "ignore-space-at-eol",
  "minimal", "patience", "histogram", "check", "full-history", "simplify-merges", "left-right", "cherry-pick",
  "boundary", "date-order", "topo-order", "author-date-order", "relative-date", "no-ext-diff", "no-textconv",
  "exit-code", "quiet", "pretty", "all-match", "invert-grep", "regexp-ignore-case", "pickaxe-all", "notes",
  "no-notes", "source", "log-size", "submodule", "cc", "merge-base", "no-prefix", "text", "relative",
  "function-context", "name-rev", "mailmap", "no-mailmap", "use-mailmap", "parents", "children", "walk-reflogs",
  "no-walk", "do-walk", "ancestry-path", "dense", "sparse", "show-pulls", "remove-empty", "no-min-parents",
  "no-max-parents", "stdin-not", "ignore-cr-at-eol", "indent-heuristic", "no-indent-heuristic", "histogram",
  "break-rewrites", "irreversible-delete", "no-color-moved", "color-moved", "color-words", "show-linear-break",
  "expand-tabs", "no-expand-tabs", "combined-all-paths", "diff-merges", "remerge-diff", "binary",
]);

/** Flags of `git log`/`show`/`diff` that take a value (`--format=%h`, `--since 2.days`). */
// biome-ignore format: a word list reads better packed
const LOG_VALUE_FLAGS = new Set([
  "format", "date", "since", "until", "after", "before", "author", "committer", "grep", "max-count", "skip",
  "unified", "diff-filter", "stat-width", "stat-name-width", "stat-count", "stat-graph-width", "src-prefix",
  "dst-prefix", "line-prefix", "inter-hunk-context", "encoding", "min-parents", "max-parents", "since-as-filter",
  "grep-reflog", "word-diff-regex", "anchored", "diff-algorithm", "ignore-matching-lines", "exclude",
  "decorate-refs", "decorate-refs-exclude", "glob", "output-indicator-new", "output-indicator-old",
  "output-indicator-context", "ws-error-highlight", "find-object", "ignore-submodules", "rotate-to", "skip-to",
]);

/** Short flags of `git log`/`show`/`diff`, alone or with an attached value where noted. */
const LOG_SHORT = /^-(?:\d+|[pusqwbizRaWmctrE]|[nUMCBlSGLOIN].*)$/;
/** Short flags whose value may be the next word. */
const LOG_SHORT_NEEDS_VALUE = new Set(["-n", "-S", "-G", "-L", "-I"]);

/** `git branch`/`tag` flags that only list. */
// biome-ignore format: a word list reads better packed
const LIST_FLAGS = new Set([
  "-a", "-r", "-l", "--list", "-v", "-vv", "--all", "--remotes", "--show-current", "--verbose", "--no-color",
  "--color", "--column", "--no-column", "-n", "--omit-empty", "--ignore-case", "-i",
]);
// biome-ignore format: a word list reads better packed
const LIST_VALUE_FLAGS = new Set([
  "--format", "--sort", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at",
]);

/** Other read-only subcommands: their flags without values and with values; operands are read paths or text. */
const OTHER: Record<
  string,
  { flags: readonly string[]; valued?: readonly string[]; operands: "read" | "text" }
> = {
  status: {
    flags: words(`
      -s --short -b --branch --porcelain --long -v --verbose -u -uno -unormal -uall --untracked-files
      --ignored --ignore-submodules --ahead-behind --no-ahead-behind --renames --no-renames --find-renames
      --show-stash -z --null --column --no-column
    `),
    operands: "read",
  },
  "rev-parse": {
    flags: words(`
      --abbrev-ref --show-toplevel --git-dir --short --verify --is-inside-work-tree --show-prefix
      --show-cdup --symbolic-full-name -q --quiet --absolute-git-dir --git-common-dir --is-bare-repository
      --is-inside-git-dir --show-superproject-working-tree --symbolic --all
    `),
    operands: "text",
  },
  "ls-files": {
    flags: words(`
      -c -d -m -o -i -s -u -k -z -t -v -f --others --cached --deleted --modified --ignored --stage
      --exclude-standard --directory --no-empty-directory --full-name --error-unmatch --abbrev
      --recurse-submodules --killed --unmerged --eol --sparse --format
    `),
    valued: ["--exclude", "-x"],
    operands: "read",
  },
  "ls-tree": {
    flags: words(`
      -r -t -d -l -z --long --name-only --name-status --object-only --full-name --full-tree --abbrev
      --format
    `),
    operands: "text",
  },
  blame: {
    flags: words(`
      -l -t -s -w -e -p -c -f -n -M -C --porcelain --line-porcelain --show-name --show-number --show-email
      --root --incremental --score-debug --abbrev --color-lines --color-by-age --date --minimal --progress
      --no-progress
    `),
    valued: ["-L", "--ignore-rev"],
    operands: "read",
  },
  describe: {
    flags: words(`
      --tags --all --long --abbrev --always --dirty --exact-match --contains --first-parent --debug
      --broken
    `),
    valued: ["--match", "--exclude", "--candidates"],
    operands: "text",
  },
  "cat-file": { flags: ["-t", "-s", "-p", "-e"], operands: "text" },
  "show-ref": {
    flags: words(`
      --heads --tags --head -s --hash --abbrev -d --dereference -q --quiet
    `),
    operands: "text",
  },
  shortlog: {
    flags: ["-n", "-s", "-e", "--numbered", "--summary", "--email", "--all", "--no-merges", "--merges"],
    operands: "text",
  },
};

/** What a git command line reads, or why it does not only read. */
export function gitEffects(args: readonly string[]): { reads: string[] } | string {
  let rest = [...args];
  // `--no-pager`/`-P` only stop paging; any other global option (-C, -c, --git-dir, --exec-path…) asks.
  while (rest[0] === "--no-pager" || rest[0] === "-P") rest = rest.slice(1);
  const [sub, ...subArgs] = rest;
  if (sub === undefined) return "git without a subcommand";
  if (sub.startsWith("-")) return `the git option \`${sub}\` can point git elsewhere or reconfigure it`;
  if (sub === "log" || sub === "show" || sub === "diff" || sub === "whatchanged")
    return logLike(sub, subArgs);
  if (sub === "branch" || sub === "tag") return listOnly(sub, subArgs);
  if (sub === "remote") {
    return subArgs.every((a) => a === "-v" || a === "--verbose")
      ? { reads: [] }
      : "`git remote` with arguments changes remotes";
  }
  const spec = OTHER[sub];
  if (spec === undefined) return `\`git ${sub}\` is not a subcommand known to only read`;
  const reads: string[] = [];
  let onlyOperands = false;
  for (let i = 0; i < subArgs.length; i++) {
    const arg = subArgs[i];
    if (onlyOperands || !arg.startsWith("-")) {
      if (spec.operands === "read") reads.push(arg);
      continue;
    }
    if (arg === "--") {
      onlyOperands = true;
      continue;
    }
    const name = arg.split("=")[0];
    if (spec.valued?.includes(name)) {
      if (!arg.includes("=")) i++;
      continue;
    }
    if (!spec.flags.includes(arg) && !spec.flags.includes(name))
      return `\`git ${sub} ${arg}\` is not known to only read`;
  }
  return { reads };
}

function logLike(sub: string, args: readonly string[]): { reads: string[] } | string {
  const reads: string[] = [];
  let onlyOperands = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (onlyOperands || !arg.startsWith("-")) {
      // A revision (`HEAD~2`, `main..dev`) or a path: either way it must resolve inside the scope.
      reads.push(arg);
      continue;
    }
    if (arg === "--") {
      onlyOperands = true;
      continue;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = arg.slice(2, eq === -1 ? undefined : eq);
      if (LOG_VALUE_FLAGS.has(name)) {
        if (eq === -1) i++;
        continue;
      }
      if (LOG_FLAGS.has(name)) continue;
      // --output writes, --ext-diff runs a program, --no-index compares any two files, -O reads an order file.
      return `\`git ${sub} ${arg}\` is not known to only read`;
    }
    if (!LOG_SHORT.test(arg)) return `\`git ${sub} ${arg}\` is not known to only read`;
    if (arg.startsWith("-O")) return `\`git ${sub} -O\` reads an order file`;
    if (LOG_SHORT_NEEDS_VALUE.has(arg)) i++;
  }
  return { reads };
}

function listOnly(sub: string, args: readonly string[]): { reads: string[] } | string {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const name = arg.split("=")[0];
    if (LIST_VALUE_FLAGS.has(name)) {
      if (!arg.includes("=")) i++;
      continue;
    }
    // `git tag -l 'v1.*'` lists by pattern; any other operand creates, deletes or renames.
    if (!LIST_FLAGS.has(arg) && !(sub === "tag" && !arg.startsWith("-") && args.includes("-l"))) {
      return `\`git ${sub}\` with \`${arg}\` changes refs`;
    }
  }
  return { reads: [] };
}

/** Config keys (last part, lower case) that make git run a program, read elsewhere, or follow another file. */
// biome-ignore format: a word list reads better packed
const DANGEROUS_KEYS = new Set([
  "fsmonitor", "hookspath", "pager", "external", "textconv", "command", "clean", "smudge", "process",
  "sshcommand", "askpass", "editor", "program", "helper", "worktree", "gitproxy", "attributesfile",
  "excludesfile", "sequenceeditor", "difftool", "tool", "cmd", "autocrlf_program", "proxycommand",
]);
/** Config sections whose every key is dangerous. */
const DANGEROUS_SECTIONS = new Set(["include", "includeif", "pager"]);

/**
 * Why running git in `dir` is not safe, or `undefined` when the repository git would use lies inside
 * the scope, is found through a `.git` entry (writes to it ask), and its config runs nothing.
 */
export function gitRepositoryProblem(dir: string, scopeDirs: readonly string[]): string | undefined {
  for (let d = dir; ; d = path.dirname(d)) {
    const dotGit = path.join(d, ".git");
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(dotGit);
    } catch {
      stat = undefined;
    }
    if (stat) {
      if (!scopeDirs.some((s) => isInsideDir(d, s))) {
        return `the repository at ${d} reaches outside the allowed directories`;
      }
      const gitDir = stat.isDirectory() ? dotGit : gitDirFromFile(dotGit, d);
      if (gitDir === undefined) return `${dotGit} does not point to a repository`;
      const inScope = scopeDirs.some((s) => isInsideDir(gitDir, s));
      if (inScope && !gitDir.split(path.sep).includes(".git")) {
        return `${dotGit} points to ${gitDir}, where the agent could have written the config`;
      }
      return configProblem(gitDir);
    }
    // Without a `.git` here, git would take a directory holding HEAD, objects and refs as a bare repository.
    if (looksLikeGitDir(d) && scopeDirs.some((s) => isInsideDir(d, s))) {
      return `${d} looks like a bare repository inside the allowed directories`;
    }
    if (path.dirname(d) === d) return undefined; // not in a repository: git only errors
  }
}

function gitDirFromFile(dotGit: string, worktree: string): string | undefined {
  try {
    const match = /^gitdir: (.+)$/m.exec(fs.readFileSync(dotGit, "utf8"));
    return match ? path.resolve(worktree, match[1].trim()) : undefined;
  } catch {
    return undefined;
  }
}

function looksLikeGitDir(d: string): boolean {
  return ["HEAD", "objects", "refs"].every((name) => fs.existsSync(path.join(d, name)));
}

/** Reads the repository's config files (a linked worktree's common dir too) for dangerous keys. */
function configProblem(gitDir: string): string | undefined {
  const files = [path.join(gitDir, "config"), path.join(gitDir, "config.worktree")];
  try {
    const common = fs.readFileSync(path.join(gitDir, "commondir"), "utf8").trim();
    files.push(path.join(path.resolve(gitDir, common), "config"));
  } catch {
    // Not a linked worktree: no common dir.
  }
  for (const file of files) {
    let text: string;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch {
      continue;
    }
    const key = dangerousKey(text);
    if (key) return `${file} sets \`${key}\`, which can make git run a program`;
  }
  return undefined;
}

/** The first dangerous `section.key` in a git config text, if any. */
function dangerousKey(text: string): string | undefined {
  let section = "";
  for (const rawLine of text.split("\n")) {
    const line = rawLine.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    let rest = line;
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"[^"]*")?\s*\]\s*(.*)$/.exec(line);
    if (header) {
      section = header[1].toLowerCase().split(".")[0];
      rest = header[2];
      if (rest === "" || rest.startsWith("#") || rest.startsWith(";")) continue;
    } else if (line.startsWith("[")) return line; // a header this reader cannot follow
    const key = (/^([A-Za-z][A-Za-z0-9-]*)/.exec(rest)?.[1] ?? rest).toLowerCase();
    if (DANGEROUS_SECTIONS.has(section) || DANGEROUS_KEYS.has(key)) return `${section}.${key}`;
  }
  return undefined;
}
