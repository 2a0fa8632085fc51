/**
 * Every part of a Bash line is judged before any of it runs, so a part whose effect changes what a
 * later part touches defeats the part-by-part verdict. Two such effects are provable from the words:
 * `cp`/`mv` can land a symlink or rename a directory (`cp -P deep/up . && cat up/secret` reads
 * through a link that did not exist when `cat` was judged), and a write into a directory of the
 * program search path the agent can write (`node_modules/.bin` under `npm run`) can put a program of
 * a later part's name there. Parts that run at the same time (a pipeline, `&`) count as later too.
 */
import path from "node:path";
import type { SimpleCommand } from "./bash-split.js";
import { isReadOnlyCommand } from "./command-effects.js";
import { isInsideDir } from "./path-scope.js";

/** Programs that can create a symlink or move a directory, changing what a later path leads to. */
const RELINKERS = new Set(["cp", "mv"]);

/** One line's parts, and which of them a rule (not the analysis) allowed. */
export interface LineParts {
  commands: readonly SimpleCommand[];
  /** True when some parts run at the same time, so "earlier" is any other part. */
  concurrent: boolean;
  /** Parts allowed by a rule: what they write is unknown. */
  ruled: (index: number) => boolean;
}

/**
 * Why part `index` cannot be judged alone, or undefined. `touchesPaths`: it names a path to read or
 * write. `base`: the directory it runs in; `scopeDirs`: the allowed directories (real paths).
 */
export function earlierPartProblem(
  line: LineParts,
  index: number,
  touchesPaths: boolean,
  base: string,
  scopeDirs: readonly string[],
): string | undefined {
  const before = line.commands.filter((_, j) => j !== index && (j < index || line.concurrent));
  const mover = before.find((c) => RELINKERS.has(c.argv[0] ?? ""));
  if (mover && touchesPaths) return `uses paths that \`${mover.text}\`, another part of the line, may relink`;
  const searchDir = writableSearchDir(base, scopeDirs);
  if (searchDir === undefined || line.commands[index].argv.length === 0) return undefined;
  const writer = line.commands.findIndex(
    (c, j) => before.includes(c) && (line.ruled(j) || !isReadOnlyCommand(c)),
  );
  if (writer === -1) return undefined;
  return `runs a program after \`${line.commands[writer].text}\`, which may write one into ${searchDir}, a PATH directory the agent can write`;
}

/** A directory of PATH that is empty, relative or inside the allowed directories, if any. */
function writableSearchDir(base: string, scopeDirs: readonly string[]): string | undefined {
  for (const entry of (process.env.PATH ?? "").split(path.delimiter)) {
    const dir = path.resolve(base, entry);
    if (!path.isAbsolute(entry) || scopeDirs.some((d) => isInsideDir(dir, d))) return dir;
  }
  return undefined;
}
