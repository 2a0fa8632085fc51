/**
 * What a recursive copy or a move brings along: `cp -r templates copy` or `mv templates copy` writes
 * every file of the tree under the destination, so a `.claude/`, `.envrc` or `.git/` deep inside the
 * source appears in the project as surely as one named on the command line. The destination paths
 * alone do not show that; the source tree does.
 */
import fs from "node:fs";
import path from "node:path";
import { protectedPathReason } from "./protected-paths.js";

/** How many entries a source tree may have before the analysis stops looking and asks. */
const MAX_ENTRIES = 2_000;

/**
 * The first path under `source` (a directory, walked without following links) whose copy at
 * `landing` would be protected, with why; `too-large` when the tree has more entries than the walk
 * looks at; undefined when nothing in it is protected (or `source` is not a directory).
 * @example protectedInCopiedTree("/p/templates", "/p/copy") // { path: "/p/copy/.claude", why: "…" }
 */
export function protectedInCopiedTree(
  source: string,
  landing: string,
): { path: string; why: string } | "too-large" | undefined {
  if (!isRealDirectory(source)) return undefined;
  let seen = 0;
  const pending = [""];
  while (pending.length > 0) {
    const rel = pending.pop() as string;
    let names: string[];
    try {
      names = fs.readdirSync(path.join(source, rel));
    } catch {
      continue; // unreadable: cp fails on it too
    }
    for (const name of names) {
      if (++seen > MAX_ENTRIES) return "too-large";
      const relEntry = path.join(rel, name);
      const target = path.join(landing, relEntry);
      const why = protectedPathReason({ lexical: target, real: target });
      if (why) return { path: target, why };
      if (isRealDirectory(path.join(source, relEntry))) pending.push(relEntry);
    }
  }
  return undefined;
}

function isRealDirectory(p: string): boolean {
  try {
    return fs.lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}
