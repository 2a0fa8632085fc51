/**
 * Flags `goat` does not know. A person who mistyped one gets an error with the closest known flag;
 * under an Agent SDK (`--input-format stream-json`) an unknown flag is set aside instead, because the
 * SDKs pass new Claude Code flags (and a host's `extraArgs`) the moment they exist, and ending the
 * session before any output for one of them would break every host on the next SDK release.
 */

/** The argv without the flags not in `known`, and those flags (with their values) for one warning. */
export interface SetAside {
  argv: string[];
  unknown: string[];
}

/**
 * Removes unknown long flags from `argv`. A flag's value is `--flag=value`, or the next word when that
 * does not start with `-` (how both SDKs write `extraArgs`; they never pass a prompt on argv).
 * A known switch (one of `switches`) followed by an empty word keeps the switch and drops the word:
 * `extraArgs: {"replay-user-messages": ""}` (Zed's Claude adapter) is written `--replay-user-messages ""`,
 * and that empty word is no prompt.
 */
export function setAsideUnknownFlags(
  argv: string[],
  known: ReadonlySet<string>,
  switches: ReadonlySet<string> = new Set(),
): SetAside {
  const out: string[] = [];
  const unknown: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (word === "--") {
      out.push(...argv.slice(i));
      break;
    }
    const name = /^--([^=]+)/.exec(word)?.[1];
    if (name === undefined || known.has(name)) {
      out.push(word);
      if (name !== undefined && switches.has(name) && !word.includes("=") && argv[i + 1] === "") i++;
      continue;
    }
    unknown.push(`--${name}`);
    const next = argv[i + 1];
    if (!word.includes("=") && next !== undefined && !next.startsWith("-")) i++;
  }
  return { argv: out, unknown };
}

/** The known flag closest to `flag` (by edit distance, ignoring case and dashes), if one is close. */
export function closestFlag(flag: string, known: Iterable<string>): string | undefined {
  const plain = (s: string) => s.replace(/^-+/, "").replace(/[-_]/g, "").toLowerCase();
  const target = plain(flag);
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(target, plain(name));
    if (!best || distance < best.distance) best = { name, distance };
  }
  if (!best) return undefined;
  // A distance up to a third of the word is a typo; more is a different flag.
  return best.distance <= Math.max(1, Math.floor(target.length / 3)) ? `--${best.name}` : undefined;
}

/** Edit distance counting a swap of two neighbours as one edit (the commonest typo). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.length][b.length];
}
