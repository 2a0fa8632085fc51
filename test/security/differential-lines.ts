/**
 * Whole command lines for the differential fuzzer: one to three parts (a command from the engine's
 * tables, git, sed, find, or an attack of issue #29) joined by `&&`, `;`, `||`, `|` or a newline,
 * sometimes with a redirection, a leading `cd DIR &&`, or a subshell or group around them. Heredoc
 * bodies go after the line their part is on. The same seed gives the same lines.
 */
import { ATTACKS, type AttackContext } from "./differential-attacks.js";
import { findCommand, gitCommand, type Part, sedCommand, specCommand } from "./differential-commands.js";
import { makeRng, type PathPool, pathPool, payloads, pickPath, type Rng } from "./differential-words.js";
import type { FuzzWorld } from "./differential-world.js";

/** A generated line and the productions it came from (for grouping what got through). */
export interface FuzzLine {
  text: string;
  tags: string[];
  /** The parts a line of several was made of, each a line by itself (heredoc body included). */
  parts?: FuzzLine[];
}

function pickWeighted<T>(rng: Rng, items: ReadonlyArray<[T, number]>): T {
  const total = items.reduce((sum, [, w]) => sum + w, 0);
  let r = rng.next() * total;
  for (const [item, w] of items) {
    r -= w;
    if (r < 0) return item;
  }
  return items[items.length - 1][0];
}

function redirect(rng: Rng, pool: PathPool, tags: string[]): string {
  const op = rng.pick([">", ">>", "2>", "<", "&>", ">|", "<>", "2>&1", ">&2", "> /dev/null", "2>/dev/null"]);
  if (op.includes("&1") || op.includes("&2") || op.includes("/dev/null")) return ` ${op}`;
  tags.push("redirect");
  return ` ${op} ${pickPath(rng, pool, tags)}`;
}

/** Returns a generator of lines for `seed`. */
export function lineGenerator(world: FuzzWorld, seed: number): () => FuzzLine {
  const rng = makeRng(seed);
  const pool = pathPool(world);
  const ctx: AttackContext = { rng, pool, payloads: payloads(world), project: world.project };
  const producers: ReadonlyArray<[() => Part, number]> = [
    [() => specCommand(rng, pool), 45],
    [() => gitCommand(rng, pool), 8],
    [() => sedCommand(rng, pool), 7],
    [() => findCommand(rng, pool), 5],
    [() => pickWeighted(rng, ATTACKS)(ctx), 35],
  ];
  return () => {
    const count = pickWeighted(rng, [
      [1, 6],
      [2, 3],
      [3, 1],
    ]);
    const parts = Array.from({ length: count }, () => pickWeighted(rng, producers)());
    const tags = parts.flatMap((p) => p.tags);
    for (const part of parts) if (rng.chance(0.12)) part.head += redirect(rng, pool, tags);
    let text = "";
    let pending: string[] = [];
    parts.forEach((part, i) => {
      if (i > 0) {
        const sep = rng.pick([" && ", "; ", " || ", " | ", "\n"]);
        if (sep === "\n" && pending.length > 0) {
          text += `\n${pending.join("\n")}`;
          pending = [];
        }
        text += sep;
      }
      text += part.head;
      if (part.trailer) pending.push(part.trailer);
    });
    if (pending.length === 0 && rng.chance(0.05)) {
      text = rng.chance(0.5) ? `( ${text} )` : `{ ${text}; }`;
      tags.push("grouped");
    }
    if (rng.chance(0.05)) {
      text = `cd ${pickPath(rng, pool, tags, ["inside", "outside", "throughLink", "dotDotAfterLink"])} && ${text}`;
      tags.push("leading-cd");
    }
    if (pending.length > 0) text += `\n${pending.join("\n")}`;
    if (parts.length === 1) return { text, tags };
    const alone = parts.map((p) => ({ text: p.trailer ? `${p.head}\n${p.trailer}` : p.head, tags: p.tags }));
    return { text, tags, parts: alone };
  };
}
