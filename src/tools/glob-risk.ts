/**
 * Which glob patterns are cheap to match on the main thread. picomatch turns a glob into a backtracking
 * regular expression: each `*` in a path segment becomes a lazy `[^/]*?`, so a segment with k stars
 * costs up to about L^k steps on a name of L characters, and globstars compound across segments.
 * Measured on a 250-character name of a's: `*a*a*b` (three stars) 28 ms, `*a*a*a*b` (four) 2.6 s;
 * `**` five times over 40 directories 67 ms. Patterns past these bounds are matched in the regex
 * worker (regex-worker.ts); within them, a hostile name costs the main thread tens of milliseconds.
 */

/** Most `*` in one path segment (a lone `**` segment aside) matched on the main thread. */
const MAX_STARS_PER_SEGMENT = 3;
/** Most `**` segments matched on the main thread. */
const MAX_GLOBSTARS = 3;

/** True when matching `glob` could take long enough to freeze the process: run it off the main thread. */
export function globMayBacktrack(glob: string): boolean {
  // Extglob groups (`+(a|b)`, `*(…)`) nest quantifiers; picomatch handles the simple ones, not all.
  if (/[@!?*+]\(/.test(glob)) return true;
  let globstars = 0;
  for (const segment of glob.split("/")) {
    if (segment === "**") {
      globstars++;
      continue;
    }
    let stars = 0;
    for (const ch of segment) if (ch === "*") stars++;
    if (stars > MAX_STARS_PER_SEGMENT) return true;
  }
  return globstars > MAX_GLOBSTARS;
}
