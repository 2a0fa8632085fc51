/**
 * Reads a `find` command line: its starting points (paths read) and an expression made only of tests
 * and printing actions this module knows. Actions that run, delete or write (`-exec`, `-execdir`,
 * `-ok`, `-delete`, `-fprint`, `-fls`…) and symlink following (`-L`, `-follow`) refuse the command, as
 * does any primary not listed here.
 */

/** Primaries without an argument. */
// biome-ignore format: a word list reads better packed
const NO_ARG = new Set([
  "-print", "-print0", "-prune", "-quit", "-depth", "-d", "-mount", "-xdev", "-noleaf", "-ignore_readdir_race",
  "-noignore_readdir_race", "-empty", "-true", "-false", "-readable", "-writable", "-executable", "-nouser",
  "-nogroup", "-ls", "-daystart", "-not", "-a", "-and", "-o", "-or", "!", "(", ")", ",", "-help", "-version",
]);

/** Primaries whose argument is text (a pattern, a number, a format). */
// biome-ignore format: a word list reads better packed
const TEXT_ARG = new Set([
  "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-lname", "-ilname",
  "-type", "-xtype", "-maxdepth", "-mindepth", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-size",
  "-perm", "-user", "-group", "-uid", "-gid", "-links", "-inum", "-used", "-regextype", "-printf", "-fstype",
  "-context",
]);

/** Primaries whose argument is a file whose times are read. */
const PATH_ARG = new Set(["-newer", "-anewer", "-cnewer", "-samefile"]);

/** The paths `find` reads, or why the command is refused. */
export function findReads(args: readonly string[]): { reads: string[] } | string {
  const reads: string[] = [];
  let i = 0;
  // Leading options: -P (the default) and -H (command-line links only, which are resolved and checked).
  while (i < args.length && /^-[PHO]/.test(args[i])) {
    // `-O` takes its level attached (`-O3`); a bare `-O` would make the next word look like a level here.
    if (args[i] === "-O") return "`find -O` without a level";
    i++;
  }
  while (i < args.length && !isExpressionStart(args[i])) reads.push(args[i++]);
  if (reads.length === 0) reads.push(".");
  for (; i < args.length; i++) {
    const arg = args[i];
    if (NO_ARG.has(arg)) continue;
    if (TEXT_ARG.has(arg) || /^-newer[aBcm]t$/.test(arg)) {
      if (args[++i] === undefined) return `\`${arg}\` needs an argument`;
      continue;
    }
    if (PATH_ARG.has(arg) || /^-newer[aBcm][aBcm]$/.test(arg)) {
      const file = args[++i];
      if (file === undefined) return `\`${arg}\` needs an argument`;
      reads.push(file);
      continue;
    }
    return `\`find ${arg}\` is not one of the tests and printing actions known to only read`;
  }
  return { reads };
}

function isExpressionStart(arg: string): boolean {
  return arg.startsWith("-") || arg === "(" || arg === "!" || arg === ")" || arg === ",";
}
