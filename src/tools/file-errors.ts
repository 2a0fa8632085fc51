/**
 * Turns file-system failures into text the model can act on: a missing file names a similar file in
 * the same directory when there is one, permission and symlink-loop errors say what happened.
 */
import fs from "node:fs";
import path from "node:path";

/** Error text for a failed stat/open/read of `filePath`, as the model should see it. */
export function describeFileError(err: unknown, filePath: string, cwd: string): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  switch (code) {
    case "ENOENT":
      return missingFileMessage(filePath, cwd);
    case "EACCES":
    case "EPERM":
      return `Permission denied: ${filePath} cannot be read by this process.`;
    case "ELOOP":
      return `Too many levels of symbolic links (a symlink loop) at ${filePath}.`;
    case "ENOTDIR":
      return `${filePath} does not exist: a component of the path is a file, not a directory.`;
    case "EISDIR":
      return isDirectoryMessage(filePath);
    default:
      return `Cannot access ${filePath}: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/** Error text for a path that is a directory where a file was expected. */
export function isDirectoryMessage(filePath: string): string {
  return `${filePath} is a directory, not a file. Use Glob or Bash \`ls\` to list a directory.`;
}

/** Error text for a file that does not exist, with a "did you mean" when a similar name is next to it. */
export function missingFileMessage(filePath: string, cwd: string): string {
  const dir = path.dirname(filePath);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return `File does not exist: ${filePath} (its directory ${dir} does not exist either). Current working directory: ${cwd}`;
  }
  const similar = findSimilarName(path.basename(filePath), names);
  const hint = similar ? ` Did you mean ${path.join(dir, similar)}?` : "";
  return `File does not exist: ${filePath}.${hint} Current working directory: ${cwd}`;
}

/**
 * The entry of `names` most like `wanted`: same name ignoring case, same stem with another
 * extension, or within a small edit distance. `undefined` when nothing is close.
 */
function findSimilarName(wanted: string, names: readonly string[]): string | undefined {
  const lower = wanted.toLowerCase();
  const stem = stemOf(lower);
  let best: string | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const name of names) {
    const candidate = name.toLowerCase();
    let score: number;
    if (candidate === lower) score = 0;
    else if (stemOf(candidate) === stem) score = 1;
    else score = 1 + editDistance(lower, candidate, 3);
    if (score < bestScore) {
      bestScore = score;
      best = name;
    }
  }
  // Up to two typos (score 3) count as similar; further than that the guess misleads more than it helps.
  return bestScore <= 3 ? best : undefined;
}

function stemOf(name: string): string {
  const ext = path.extname(name);
  return ext && ext !== name ? name.slice(0, -ext.length) : name;
}

/** Levenshtein distance, giving up (returning `max + 1`) once it must exceed `max`. */
function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      rowMin = Math.min(rowMin, cur[j]);
    }
    if (rowMin > max) return max + 1;
    prev = cur;
  }
  return prev[b.length];
}
