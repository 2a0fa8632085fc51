/**
 * What one simple command would do to the filesystem, as far as the analysis can prove it: the paths
 * it reads and the paths it writes (operands, option values and redirections), or why it cannot say.
 * Only programs with a spec (command-specs, find-args, sed-script, git-commands) get an answer; any
 * other program, a program named by path, a word the shell expands, an assignment, or a redirection to
 * an expanded name is "cannot say", which the modes turn into a question.
 */
import type { SimpleCommand } from "./bash-split.js";
import { parseArgs } from "./command-spec.js";
import { FILE_COMMAND_SPECS, READ_ONLY_SPECS } from "./command-specs.js";
import { findReads } from "./find-args.js";
import { gitEffects } from "./git-commands.js";
import { sedEffects } from "./sed-script.js";

/** The filesystem effects of one command. Paths are as written, relative to the command's directory. */
export interface CommandEffects {
  reads: string[];
  writes: string[];
  /** `cp`/`mv`: where the sources land depends on whether `target` is a directory. */
  destination?: { sources: string[]; target: string; exact: boolean };
  /** Set for git, whose safety also depends on the repository's config (git-commands). */
  git?: true;
}

/** Special files a redirection may read or write without it counting as a file access. */
const HARMLESS_SINKS = new Set(["/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr"]);

/**
 * The effects of `cmd`, or a sentence saying why the analysis cannot vouch for it.
 * @example commandEffects(split("sort -o out in")) // "the option `-o` is not one known to only read"
 */
export function commandEffects(cmd: SimpleCommand): CommandEffects | string {
  if (cmd.unproven) return cmd.unproven;
  const effects: CommandEffects = { reads: [], writes: [] };
  for (const r of cmd.redirects) {
    if (r.kind === "input" && r.target && !r.target.literal) return `its input has ${r.target.why}`;
    if (r.kind !== "read" && r.kind !== "write") continue;
    if (!r.target?.literal)
      return `the redirection target \`${r.target?.raw ?? ""}\` is expanded by the shell`;
    if (HARMLESS_SINKS.has(r.target.value)) continue;
    if (r.kind === "read") effects.reads.push(r.target.value);
    else effects.writes.push(r.target.value);
  }
  if (cmd.argv.length === 0) return effects;
  const [program, ...args] = cmd.argv;
  if (program.includes("/")) return `\`${program}\` is run by path, so it may be any program`;
  const own = programEffects(cmd, program, args);
  if (typeof own === "string") return own;
  effects.reads.push(...own.reads);
  effects.writes.push(...own.writes);
  if (own.destination) effects.destination = own.destination;
  if (own.git) effects.git = true;
  return effects;
}

/**
 * True when the command provably changes nothing: a known program with known flags, no writes. Paths
 * and the repository's config are judged elsewhere (modes), so this is a property of the words alone.
 * @example isReadOnlyCommand(split("git status")) // true; "git push", "ls > out" and "tail -f x" are not
 */
export function isReadOnlyCommand(cmd: SimpleCommand): boolean {
  const effects = commandEffects(cmd);
  return typeof effects !== "string" && effects.writes.length === 0 && effects.destination === undefined;
}

function programEffects(cmd: SimpleCommand, program: string, args: string[]): CommandEffects | string {
  if (program === "cd") {
    if (!cmd.leadingCd) return "`cd` changes the directory later paths are relative to";
    const dir = args[0];
    if (args.length !== 1 || dir.startsWith("-")) return "`cd` with options or without one directory";
    // With CDPATH set, `cd name` may go to a directory of that search path instead.
    if (process.env.CDPATH && !/^(\/|\.\/|\.\.\/|\.$|\.\.$)/.test(dir)) return "`cd` may follow CDPATH";
    return { reads: [dir], writes: [] };
  }
  if (program === "find") {
    const found = findReads(args);
    return typeof found === "string" ? found : { reads: found.reads, writes: [] };
  }
  if (program === "sed") return sedEffects(args);
  if (program === "git") {
    const git = gitEffects(args);
    return typeof git === "string" ? git : { reads: git.reads, writes: [], git: true };
  }
  const spec = Object.hasOwn(READ_ONLY_SPECS, program)
    ? READ_ONLY_SPECS[program]
    : Object.hasOwn(FILE_COMMAND_SPECS, program)
      ? FILE_COMMAND_SPECS[program]
      : undefined;
  if (spec === undefined) return `\`${program}\` is not a program known to only read or edit files`;
  const parsed = parseArgs(spec, args);
  if (typeof parsed === "string") return `\`${program}\`: ${parsed}`;
  const effects: CommandEffects = { reads: parsed.reads, writes: parsed.writes };
  if (parsed.destination) {
    const exact = parsed.flags.some((f) => f.name === "-T" || f.name === "--no-target-directory");
    effects.destination = { sources: parsed.destination.sources, target: parsed.destination.target, exact };
  }
  return effects;
}
