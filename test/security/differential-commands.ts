/**
 * Single commands for the differential fuzzer, from the engine's own tables: every program of
 * READ_ONLY_SPECS and FILE_COMMAND_SPECS (so a program added there is fuzzed without a change here)
 * with its known flags (bundled short flags, `-n5`, `--opt=value`, `--opt value`, optional values)
 * and near misses (GNU long-option prefixes such as `--files0=-`, `=value` on a flag that takes none,
 * letters the spec does not list), a pattern where the spec wants one, and operands by role. `git`,
 * `sed` and `find` have their own readers whose word lists are not exported, so their vocabulary is
 * written here: the listed subcommands and flags plus the ones that write, run programs or read lists.
 */
import type { CommandSpec } from "../../src/permissions/command-spec.js";
import { FILE_COMMAND_SPECS, READ_ONLY_SPECS } from "../../src/permissions/command-specs.js";
import { type PathPool, pickPath, pickText, quote, type Rng } from "./differential-words.js";

/** A piece of a line: its text on the command line, a heredoc body to put after the line, and tags. */
export interface Part {
  head: string;
  /** Heredoc bodies (with their delimiter lines), placed after the whole line. */
  trailer?: string;
  tags: string[];
}

/** Every program the engine's tables know, read-only ones and acceptEdits' file commands. */
export const SPEC_PROGRAMS: ReadonlyArray<[string, CommandSpec]> = [
  ...Object.entries(READ_ONLY_SPECS),
  ...Object.entries(FILE_COMMAND_SPECS),
];

/** One flag of `spec`: usually a known one, sometimes a near miss. */
function flagFor(rng: Rng, spec: CommandSpec, pool: PathPool, tags: string[]): string | undefined {
  const value = (role: string) => (role === "read" ? pickPath(rng, pool, tags) : pickText(rng, pool, tags));
  const longs = Object.keys({ ...spec.longValue, ...spec.longOptional }).concat(spec.long ?? []);
  if (rng.chance(0.2) && longs.length > 0) return nearMiss(rng, spec, longs, tags);
  const options: Array<() => string | undefined> = [];
  if (spec.short) {
    const letters = spec.short;
    options.push(() => `-${Array.from({ length: rng.int(1, 3) }, () => rng.pick([...letters])).join("")}`);
  }
  if (spec.shortValue) {
    const entries = Object.entries(spec.shortValue);
    options.push(() => {
      const [letter, role] = rng.pick(entries);
      const v = value(role);
      return rng.chance(0.5) ? `-${letter} ${v}` : `-${letter}${v}`;
    });
  }
  if (spec.long?.length) options.push(() => `--${rng.pick(spec.long!)}`);
  if (spec.longValue) {
    const entries = Object.entries(spec.longValue);
    options.push(() => {
      const [name, role] = rng.pick(entries);
      return rng.chance(0.5) ? `--${name}=${value(role)}` : `--${name} ${value(role)}`;
    });
  }
  if (spec.longOptional) {
    const entries = Object.entries(spec.longOptional);
    options.push(() => {
      const [name, role] = rng.pick(entries);
      return rng.chance(0.5) ? `--${name}` : `--${name}=${value(role)}`;
    });
  }
  if (spec.numericFlag) options.push(() => `-${rng.int(1, 20)}`);
  return options.length > 0 ? rng.pick(options)() : undefined;
}

/** A flag the spec does not list but a program's parser may take: a prefix, a stray value, a new letter. */
function nearMiss(rng: Rng, spec: CommandSpec, longs: string[], tags: string[]): string {
  tags.push("flag:near-miss");
  const name = rng.pick(longs);
  switch (rng.int(0, 4)) {
    case 0:
      return `--${name.slice(0, rng.int(1, Math.max(1, name.length - 1)))}=-`;
    case 1:
      return `--${name.slice(0, rng.int(2, Math.max(2, name.length - 1)))}`;
    case 2:
      return `--${name}=x`;
    case 3:
      return `-${rng.pick([..."LRoOfFxXTSzZwWeEp"])}`;
    default:
      return `-${(spec.short ?? "a").slice(0, 2)}${rng.pick([..."oLfT"])}`;
  }
}

/** A command of a program from the tables, with flags and operands by the spec's roles. */
export function specCommand(rng: Rng, pool: PathPool): Part {
  const [program, spec] = rng.pick(SPEC_PROGRAMS);
  const tags = [`spec:${program}`];
  const words = [program];
  for (let i = rng.int(0, 3); i > 0; i--) {
    const flag = flagFor(rng, spec, pool, tags);
    if (flag) words.push(flag);
  }
  if (spec.patternFirst) words.push(pickPattern(rng, program, tags));
  const count =
    spec.operands === "none"
      ? 0
      : spec.operands === "copy" || spec.operands === "move"
        ? rng.int(2, 3)
        : rng.int(spec.allText ? 0 : 1, 2);
  for (let i = 0; i < count; i++) {
    const last = i === count - 1;
    if (spec.operands === "text") words.push(pickText(rng, pool, tags));
    else if (spec.operands === "write" || ((spec.operands === "copy" || spec.operands === "move") && last))
      words.push(
        pickPath(rng, pool, tags, [
          "fresh",
          "inside",
          "outside",
          "throughLink",
          "dotDotAfterLink",
          "protectedNames",
        ]),
      );
    else words.push(pickPath(rng, pool, tags));
  }
  return { head: words.join(" "), tags };
}

/** jq programs (including ones that read the environment) and search patterns. */
function pickPattern(rng: Rng, program: string, tags: string[]): string {
  if (program === "jq") {
    const p = rng.pick([
      "'.'",
      "'.name'",
      "'.list[]'",
      "'$ ENV'",
      "'$ENV'",
      "'env'",
      "'$ ENV.AWS_SECRET_ACCESS_KEY'",
      "'$\tENV'",
      "'\"\\($ ENV)\"'",
      "'$__loc__'",
      "'input_filename'",
      "'[$ ENV][0]|tostring'",
      "'$ENV|keys'",
      "'builtins|length'",
      "'# x\n$ ENV'",
    ]);
    if (p.includes("ENV") || p.includes("env")) tags.push("jq:env");
    return p;
  }
  return rng.pick(["alpha", "x", "'a.*'", "-e", "export", "''", "'$(id)'", "AWS", "CANARY"]);
}

/** `git` with a read-only subcommand or a near miss, flags and operands. */
export function gitCommand(rng: Rng, pool: PathPool): Part {
  const tags = ["git"];
  const words = ["git"];
  if (rng.chance(0.15))
    words.push(rng.pick(["--no-pager", "-P", "-c core.pager=id", "-C ..", "--git-dir=.git"]));
  const sub = rng.pick([
    "status",
    "log",
    "show",
    "diff",
    "branch",
    "tag",
    "remote",
    "rev-parse",
    "ls-files",
    "ls-tree",
    "blame",
    "describe",
    "cat-file",
    "show-ref",
    "shortlog",
    "whatchanged",
    "config",
    "grep",
    "archive",
    "stash",
    "worktree",
    "submodule",
    "notes",
    "apply",
    "checkout",
  ]);
  tags.push(`git:${sub}`);
  words.push(sub);
  const flags = [
    "--oneline",
    "--stat",
    "-p",
    "-n 2",
    "-3",
    "--format=%H",
    "--name-only",
    "--all",
    "--cached",
    "-s",
    "--porcelain",
    "-z",
    "--show-toplevel",
    "--abbrev-ref",
    "-l",
    "-v",
    "--ignored",
    "--output=out.txt",
    "--ext-diff",
    "--textconv",
    "--no-index",
    "-O lists/paths.txt",
    "--exec-path=.",
    "-L 1,2:notes.txt",
    "--pathspec-from-file=lists/paths.txt",
    "--dirty",
    "--no-ext-diff",
    "-t",
    "-p HEAD",
    "--show-current",
    "--decorate",
    "--follow",
    "-u",
    "--word-diff",
    "--open-files-in-pager",
    "--output-indicator-new=x",
  ];
  for (let i = rng.int(0, 2); i > 0; i--) words.push(rng.pick(flags));
  if (rng.chance(0.5)) words.push(rng.pick(["HEAD", "HEAD~1", "HEAD:notes.txt", "--", "main"]));
  if (rng.chance(0.5)) words.push(pickPath(rng, pool, tags));
  return { head: words.join(" "), tags };
}

/** sed scripts: printing and editing ones, and ones that read, write or run. */
const SED_SCRIPTS = [
  "p",
  "1,2p",
  "s/a/b/",
  "s/a/b/g",
  "$!N",
  "/x/{p;q}",
  "y/abc/xyz/",
  "1~2d",
  "0,/a/d",
  "=",
  "l 5",
  "q5",
  "F",
  "s/a/b/w out.txt",
  "1r ~/.ssh/id_rsa",
  "R ../canary/secret.txt",
  "e id",
  "s/x/id/e",
  "1e id",
  "W out.txt",
  "s/a/b/ w out.txt",
  "s/a/b/Iw out.txt",
  "a foo",
  "1i\\\nbar",
  "c baz",
  "s|a|b|e",
  "#n\np",
  "v",
  "z;p",
  "s/a/b/;# c\nw out.txt",
  "1!G;h;$!d",
  "s/a/b/M",
  "\\%a%p",
  "T;p",
  ":a;N;ba",
  "s/.*/cat ~\\/.netrc/e",
];

/** `sed` with options (`-n`, `-E`, `-i`, `--in-place=`, `-e`, near misses) and a script. */
export function sedCommand(rng: Rng, pool: PathPool): Part {
  const tags = ["sed"];
  const words = ["sed"];
  for (let i = rng.int(0, 2); i > 0; i--)
    words.push(
      rng.pick([
        "-n",
        "-E",
        "-z",
        "-s",
        "-u",
        "--posix",
        "--debug",
        "--sandbox",
        "-i",
        "-i.bak",
        "--in-place=.b",
        "--follow-symlinks",
        "-l 5",
        "-f lists/paths.txt",
        "--expression=p",
        "-ni",
      ]),
    );
  const script = rng.pick(SED_SCRIPTS);
  words.push(rng.chance(0.3) ? `-e ${quote(script)}` : quote(script));
  for (let i = rng.int(0, 2); i > 0; i--) words.push(pickPath(rng, pool, tags));
  return { head: words.join(" "), tags };
}

/** `find` with starting points and an expression of tests, printing actions and near misses. */
export function findCommand(rng: Rng, pool: PathPool): Part {
  const tags = ["find"];
  const words = ["find"];
  if (rng.chance(0.2)) words.push(rng.pick(["-P", "-H", "-L", "-O3", "-D exec"]));
  for (let i = rng.int(0, 2); i > 0; i--) words.push(pickPath(rng, pool, tags));
  const primaries = [
    "-name '*.ts'",
    "-type f",
    "-maxdepth 2",
    "-print0",
    "-ls",
    "-quit",
    "-printf '%p %s\\n'",
    "-empty",
    "-newer notes.txt",
    `-newer ${pickPath(rng, pool, tags)}`,
    `-samefile ${pickPath(rng, pool, tags)}`,
    "-exec cat {} \\;",
    "-delete",
    "-fprint out.txt",
    "-fls out.txt",
    "-follow",
    "-lname '*'",
    "-xtype l",
    "-files0-from lists/files0",
    "-newermt 2020-01-01",
    "-not -name x",
    "\\( -name a -o -name b \\)",
  ];
  for (let i = rng.int(0, 3); i > 0; i--) words.push(rng.pick(primaries));
  return { head: words.join(" "), tags };
}
