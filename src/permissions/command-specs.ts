/**
 * The programs the permission layer runs without asking, each with the flags it vouches for and the
 * role of every operand (GNU coreutils, grep, ripgrep, jq, tree…). Left out on purpose: flags that
 * write (`sort -o`, `tree -o`, `uniq`'s second operand), run programs (`rg --pre`, `sort
 * --compress-program`, `find -exec`), follow symlinks while recursing out of the directory (`ls -L`,
 * `grep -R`, `rg -L`, `du -L`, `diff -r`), read a list of files to open (`sha256sum -c`,
 * `--files0-from`: the files named inside are read, not the list), or make a destination's name
 * other than the one written (`cp`/`mv` `-b`, `-S`, `--backup`, `--suffix`). A long option is only
 * known by its full name: GNU getopt also takes any unambiguous prefix (`--files0=-`), which this
 * list cannot resolve without every option of the program, so a prefix is an unknown flag. `find`,
 * `sed` and `git` have their own readers (find-args, sed-script, git-commands).
 */
import type { CommandSpec, ParsedArgs } from "./command-spec.js";

/** A word list written as one string, so it stays packed: `words("a b")` is `["a", "b"]`. */
const words = (list: string): string[] => list.split(/\s+/).filter(Boolean);

const TEXT = "text" as const;
const READ = "read" as const;
const WRITE = "write" as const;

const text = (...names: string[]) => Object.fromEntries(names.map((n) => [n, TEXT]));

const CHECKSUM: CommandSpec = { short: "btz", long: ["binary", "text", "tag", "zero"], operands: READ };

const GREP: CommandSpec = {
  short: "abcEFGhHiIlLnoqrsTUvwxyzZPV",
  shortValue: { ...text("e", "m", "A", "B", "C", "d", "D"), f: READ },
  long: words(`
    text byte-offset count extended-regexp fixed-strings basic-regexp no-filename with-filename ignore-case
    no-ignore-case files-with-matches files-without-match line-number only-matching quiet silent recursive
    no-messages initial-tab binary invert-match word-regexp line-regexp null-data null perl-regexp
    line-buffered version help
  `),
  longValue: {
    ...text("regexp", "max-count", "after-context", "before-context", "context", "include", "exclude"),
    ...text("exclude-dir", "label", "binary-files", "devices", "directories", "group-separator"),
    file: READ,
    "exclude-from": READ,
  },
  longOptional: text("color", "colour"),
  numericFlag: true,
  operands: READ,
  patternFirst: { unlessFlags: ["-e", "-f", "--regexp", "--file"] },
  check: (p) =>
    p.flags.some(
      (f) =>
        (f.name === "-d" || f.name === "--directories") &&
        f.value !== "recurse" &&
        f.value !== "skip" &&
        f.value !== "read",
    )
      ? "an unknown `--directories` action"
      : undefined,
};

const RG: CommandSpec = {
  short: "abcFhHiIlnNopqsSUuvVwx0.P",
  shortValue: { ...text("e", "g", "t", "T", "m", "A", "B", "C", "M", "j", "E", "d", "r"), f: READ },
  long: words(`
    files type-list hidden no-hidden no-ignore no-ignore-vcs no-ignore-parent no-ignore-dot
    no-ignore-global no-ignore-exclude no-ignore-files no-messages no-heading heading line-number
    no-line-number count count-matches files-with-matches files-without-match fixed-strings ignore-case
    smart-case case-sensitive invert-match word-regexp line-regexp multiline multiline-dotall only-matching
    json vimgrep column no-column no-filename with-filename null null-data trim stats text binary crlf
    pcre2 passthru byte-offset quiet unrestricted no-config one-file-system no-require-git
    glob-case-insensitive pretty no-unicode help version max-columns-preview sort-files no-follow
    no-search-zip no-pre include-zero
  `),
  longValue: {
    ...text("regexp", "glob", "iglob", "type", "type-not", "type-add", "type-clear", "max-count"),
    ...text("after-context", "before-context", "context", "max-depth", "maxdepth", "threads", "encoding"),
    ...text("max-filesize", "max-columns", "color", "colors", "sort", "sortr", "replace", "engine"),
    ...text("path-separator", "context-separator", "field-match-separator", "field-context-separator"),
    file: READ,
    "ignore-file": READ,
  },
  operands: READ,
  patternFirst: { unlessFlags: ["-e", "-f", "--regexp", "--file", "--files", "--type-list"] },
};

const LS: CommandSpec = {
  short: "aAbBcCdfFgGhHiklmnNopqQrRsStuUvxXZ1",
  shortValue: text("w", "T", "I"),
  long: words(`
    all almost-all author escape directory classify file-type human-readable si inode literal
    numeric-uid-gid reverse recursive size dereference-command-line dereference-command-line-symlink-to-dir
    group-directories-first full-time no-group hide-control-chars show-control-chars quote-name context
    kibibytes ignore-backups
  `),
  longValue: text("time-style", "sort", "format", "block-size", "hide", "ignore", "width", "tabsize", "time"),
  longOptional: text("color", "indicator-style", "quoting-style", "hyperlink", "classify"),
  operands: READ,
};

const HEAD: CommandSpec = {
  short: "qvz",
  shortValue: text("n", "c"),
  long: ["quiet", "silent", "verbose", "zero-terminated"],
  longValue: text("lines", "bytes"),
  numericFlag: true,
  operands: READ,
};

const DATE_FORMAT_ONLY = (p: ParsedArgs) =>
  p.operands.every((o) => o.startsWith("+")) ? undefined : "an operand that is not a +FORMAT sets the clock";

/**
 * Why a jq program may reveal more than its input files, or undefined. `env` and `$ENV` print the
 * environment (jq's lexer lets blanks and comments sit between `$` and the name: `$ ENV`, `$#c⏎ENV`,
 * so the name is refused wherever it appears), `$__prog_args` and the other `$__…` names are jq's
 * internals, and modules are files read from a search path. `.env` is only a field and stays allowed.
 */
function jqProgramProblem(program: string): string | undefined {
  if (/\bENV\b|__/.test(program)) return "the jq program reads the environment or jq's internals";
  for (const m of program.matchAll(/\benv\b/g)) {
    const field = program[m.index - 1] === "." && program[m.index - 2] !== ".";
    if (!field) return "the jq program reads the environment";
  }
  if (/\b(import|include|modulemeta|get_search_list|get_prog_origin|get_jq_origin)\b/.test(program))
    return "the jq program loads modules";
  return undefined;
}

/** Programs that only read, by name. */
export const READ_ONLY_SPECS: Readonly<Record<string, CommandSpec>> = {
  ls: LS,
  dir: LS,
  cat: {
    short: "AbeEnstTuv",
    // biome-ignore format: a word list reads better packed
    long: [
      "show-all", "number-nonblank", "number", "squeeze-blank", "show-ends", "show-tabs", "show-nonprinting",
    ],
    operands: READ,
  },
  head: HEAD,
  tail: HEAD, // without -f/--follow: `tail -f` never ends
  wc: {
    short: "clmwL",
    long: ["bytes", "chars", "lines", "words", "max-line-length"],
    longValue: text("total"),
    operands: READ,
  },
  pwd: { short: "LP", operands: "none" },
  echo: { allText: true, operands: TEXT },
  // bash's own printf: `-v NAME` assigns NAME (a subscript in it is arithmetic that runs `$(…)`).
  printf: {
    allText: true,
    operands: TEXT,
    check: (p) => (p.operands[0]?.startsWith("-v") ? "`printf -v` assigns a shell variable" : undefined),
  },
  true: { allText: true, operands: TEXT },
  false: { allText: true, operands: TEXT },
  ":": { allText: true, operands: TEXT },
  grep: GREP,
  egrep: GREP,
  fgrep: GREP,
  rg: RG,
  sort: {
    short: "bdfgiMhnRrVcCsuz",
    shortValue: text("k", "t", "S"),
    long: words(`
      ignore-leading-blanks dictionary-order ignore-case general-numeric-sort ignore-nonprinting month-sort
      human-numeric-sort numeric-sort random-sort reverse version-sort stable unique zero-terminated debug
    `),
    longValue: text("key", "field-separator", "buffer-size", "parallel", "sort"),
    longOptional: text("check"),
    operands: READ,
  },
  uniq: {
    short: "cdDiuz",
    shortValue: text("f", "s", "w"),
    long: ["count", "repeated", "ignore-case", "unique", "zero-terminated"],
    longValue: text("skip-fields", "skip-chars", "check-chars"),
    longOptional: text("all-repeated", "group"),
    operands: READ,
    maxOperands: 1, // a second operand is the output file
  },
  cut: {
    short: "snz",
    shortValue: text("b", "c", "f", "d"),
    long: ["complement", "only-delimited", "zero-terminated"],
    longValue: text("bytes", "characters", "fields", "delimiter", "output-delimiter"),
    operands: READ,
  },
  diff: {
    short: "aBbdEiNpqstTuwy",
    shortValue: { ...text("U", "C", "W", "x", "I", "F"), X: READ },
    long: words(`
      text ignore-blank-lines ignore-space-change minimal ignore-tab-expansion ignore-case new-file
      show-c-function brief report-identical-files expand-tabs initial-tab ignore-all-space side-by-side
      strip-trailing-cr suppress-common-lines left-column speed-large-files ignore-file-name-case
      no-ignore-file-name-case suppress-blank-empty unidirectional-new-file
    `),
    longValue: {
      ...text("unified", "context", "width", "exclude", "ignore-matching-lines", "label", "tabsize"),
      ...text(
        "show-function-line",
        "line-format",
        "new-line-format",
        "old-line-format",
        "unchanged-line-format",
      ),
      "exclude-from": READ,
    },
    longOptional: text("color", "palette"),
    operands: READ,
  },
  cmp: {
    short: "blsv",
    shortValue: text("i", "n"),
    long: ["print-bytes", "verbose", "quiet", "silent"],
    operands: READ,
  },
  comm: {
    short: "123z",
    long: ["check-order", "nocheck-order", "total", "zero-terminated"],
    longValue: text("output-delimiter"),
    operands: READ,
    maxOperands: 2,
  },
  md5sum: CHECKSUM,
  sha1sum: CHECKSUM,
  sha224sum: CHECKSUM,
  sha256sum: CHECKSUM,
  sha384sum: CHECKSUM,
  sha512sum: CHECKSUM,
  b2sum: CHECKSUM,
  cksum: { operands: READ },
  column: { short: "tnxeJ", shortValue: text("s", "c", "o", "N"), operands: READ },
  nl: { short: "p", shortValue: text("b", "d", "f", "h", "i", "l", "n", "s", "v", "w"), operands: READ },
  tac: { short: "br", shortValue: text("s"), operands: READ },
  rev: { operands: READ },
  seq: { short: "w", shortValue: text("f", "s"), operands: TEXT },
  basename: {
    short: "az",
    shortValue: text("s"),
    long: ["multiple", "zero"],
    longValue: text("suffix"),
    operands: TEXT,
  },
  dirname: { short: "z", long: ["zero"], operands: TEXT },
  realpath: {
    short: "eEmLPqsz",
    // biome-ignore format: a word list reads better packed
    long: [
      "canonicalize-existing", "canonicalize-missing", "logical", "physical", "quiet", "strip",
      "no-symlinks", "zero",
    ],
    longValue: { "relative-to": READ, "relative-base": READ },
    operands: READ,
  },
  readlink: {
    short: "efmnqsvz",
    // biome-ignore format: a word list reads better packed
    long: [
      "canonicalize", "canonicalize-existing", "canonicalize-missing", "no-newline", "quiet", "silent",
      "verbose", "zero",
    ],
    operands: READ,
  },
  stat: {
    short: "LftT",
    shortValue: text("c"),
    long: ["dereference", "file-system", "terse"],
    longValue: text("format", "printf", "cached"),
    operands: READ,
  },
  file: {
    short: "bhiLkNrs0",
    // biome-ignore format: a word list reads better packed
    long: [
      "brief", "mime", "mime-type", "mime-encoding", "dereference", "no-dereference", "keep-going", "raw",
      "special-files", "print0", "no-pad", "extension", "apple",
    ],
    operands: READ,
  },
  du: {
    short: "0abcDhHklmsSx",
    shortValue: text("d", "B", "t"),
    long: words(`
      null all apparent-size bytes total dereference-args human-readable si count-links separate-dirs
      summarize one-file-system inodes
    `),
    longValue: {
      ...text("max-depth", "block-size", "exclude", "threshold", "time-style"),
      "exclude-from": READ,
    },
    longOptional: text("time"),
    operands: READ,
  },
  df: {
    short: "ahHiklPTv",
    shortValue: text("t", "x", "B"),
    // biome-ignore format: a word list reads better packed
    long: [
      "all", "human-readable", "si", "inodes", "local", "portability", "total", "print-type", "no-sync",
      "sync",
    ],
    longValue: text("type", "exclude-type", "block-size"),
    longOptional: text("output"),
    operands: READ,
  },
  tree: {
    short: "adfigpsuhDFqNQrtvUxCnAJX",
    shortValue: text("L", "P", "I", "H", "T"),
    // biome-ignore format: a word list reads better packed
    long: [
      "noreport", "dirsfirst", "filesfirst", "gitignore", "prune", "matchdirs", "ignore-case", "du", "si",
      "inodes", "device", "help", "version",
    ],
    longValue: text("charset", "filelimit", "timefmt", "sort"),
    operands: READ,
  },
  which: { short: "as", operands: TEXT },
  type: { short: "afptP", operands: TEXT },
  whoami: { operands: "none" },
  id: { short: "gGnruzZ", operands: TEXT },
  hostname: {
    short: "fisdA",
    long: ["fqdn", "short", "domain", "ip-address", "all-fqdns"],
    operands: "none",
  },
  nproc: { long: ["all"], longValue: text("ignore"), operands: "none" },
  uname: {
    short: "asnrvmpio",
    // biome-ignore format: a word list reads better packed
    long: [
      "all", "kernel-name", "nodename", "kernel-release", "kernel-version", "machine", "processor",
      "hardware-platform", "operating-system",
    ],
    operands: "none",
  },
  date: {
    short: "uR",
    shortValue: { d: TEXT, r: READ, f: READ },
    long: ["utc", "universal", "rfc-email", "debug"],
    longValue: { date: TEXT, "rfc-3339": TEXT, reference: READ, file: READ },
    longOptional: text("iso-8601"),
    operands: TEXT,
    check: DATE_FORMAT_ONLY,
  },
  jq: {
    short: "ncrjaSCMseR",
    // biome-ignore format: a word list reads better packed
    long: [
      "null-input", "compact-output", "raw-output", "join-output", "ascii-output", "sort-keys",
      "color-output", "monochrome-output", "slurp", "exit-status", "raw-input", "tab", "seq", "stream",
      "raw-output0",
    ],
    longValue: text("indent"),
    operands: READ,
    patternFirst: { unlessFlags: [] },
    check: (p) => jqProgramProblem(p.pattern ?? ""),
  },
};

/** File commands that acceptEdits runs without asking when every path is in scope (Claude Code's list). */
export const FILE_COMMAND_SPECS: Readonly<Record<string, CommandSpec>> = {
  mkdir: {
    short: "pv",
    shortValue: text("m"),
    long: ["parents", "verbose"],
    longValue: text("mode"),
    operands: WRITE,
  },
  touch: {
    short: "acmhf",
    shortValue: { d: TEXT, t: TEXT, r: READ },
    long: ["no-create", "no-dereference"],
    longValue: { date: TEXT, time: TEXT, reference: READ },
    operands: WRITE,
  },
  rm: {
    short: "fiIrRdv",
    long: ["force", "recursive", "dir", "verbose", "one-file-system", "preserve-root"],
    longOptional: text("interactive"),
    operands: WRITE,
  },
  rmdir: { short: "pv", long: ["parents", "verbose", "ignore-fail-on-non-empty"], operands: WRITE },
  mv: {
    short: "fnuvT",
    shortValue: { t: WRITE },
    long: ["force", "no-clobber", "update", "verbose", "no-target-directory", "strip-trailing-slashes"],
    longValue: { "target-directory": WRITE },
    operands: "move",
  },
  cp: {
    short: "adfHinpPrRTuvx",
    shortValue: { t: WRITE },
    long: words(`
      archive force interactive no-clobber no-dereference recursive update verbose no-target-directory
      one-file-system strip-trailing-slashes attributes-only remove-destination
    `),
    longValue: { "target-directory": WRITE },
    longOptional: text("preserve", "no-preserve", "sparse", "reflink"),
    operands: "copy",
  },
};
