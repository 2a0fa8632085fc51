/**
 * The words the differential fuzzer builds lines from: a seeded random source, shell quoting, the
 * path spellings of the fuzz world by kind (inside, new, outside, through links, `..` after a linked
 * directory, protected names, `~`, /proc), text values, and payloads: commands that touch a canary
 * when they run, to hide in places bash evaluates (`$(…)`, backticks, array subscripts, heredoc bodies).
 */
import path from "node:path";
import type { FuzzWorld } from "./differential-world.js";
import { seededRandom } from "./escape-fixture.js";

/** A seeded random source with the helpers the grammar uses. */
export interface Rng {
  next(): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
  int(lo: number, hi: number): number;
}

/** A random source that repeats for a seed (mulberry32 underneath). */
export function makeRng(seed: number): Rng {
  const next = seededRandom(seed);
  return {
    next,
    pick: (items) => items[Math.floor(next() * items.length)],
    chance: (p) => next() < p,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
  };
}

/** One word as bash would read it back to `s`: bare when safe, single-quoted otherwise. */
export function quote(s: string): string {
  return /^[A-Za-z0-9_./=:,+@%^-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`;
}

/** Path spellings by kind. Each is a shell word as written (quoted where it needs to be). */
export interface PathPool {
  inside: string[];
  fresh: string[];
  outside: string[];
  throughLink: string[];
  dotDotAfterLink: string[];
  protectedNames: string[];
  special: string[];
}

/** The pool for a world; absolute spellings use the template's paths, which the jail mounts the copy at. */
export function pathPool(w: FuzzWorld): PathPool {
  const canary = (rel: string) => quote(path.join(w.canary, rel));
  return {
    inside: [
      "notes.txt",
      "README.md",
      "src/a.ts",
      "src",
      ".",
      "'dir with space/file one.txt'",
      "'dir with space'",
      "link-in",
      "data.json",
      "src/sub/b.ts",
      "./src/../notes.txt",
      "lists/paths.txt",
      "lists/files0",
      "templates",
      "templates/plain.txt",
      "src/parent/notes.txt",
      "node_modules",
      ".git/HEAD",
      quote(path.join(w.project, "notes.txt")),
      "tools/run.sh",
    ],
    fresh: ["new.txt", "out.txt", "'new file.txt'", "src/new.ts", "build/x.txt", "newdir", "up", "copy"],
    outside: [
      "../canary/secret.txt",
      canary("secret.txt"),
      canary("victim.txt"),
      "..",
      "../canary",
      quote(w.root),
      "~",
      "~/.ssh/id_rsa",
      "~/.aws/credentials",
      "~/.netrc",
      "~/.bashrc",
      "~/../canary/secret.txt",
      "./../canary/private.key",
      "src//../..//canary/secret.txt",
      "/tmp/dfuzz-out",
      "/dev/shm/dfuzz-out",
    ],
    throughLink: [
      "link-out",
      "link-dir",
      "link-dir/secret.txt",
      "link-dir/new.txt",
      "dangling",
      "node_modules/pkg",
      "node_modules/pkg/index.js",
      "node_modules/pkg/new.js",
      "src/parent",
    ],
    dotDotAfterLink: [
      "link-dir/../canary/secret.txt",
      "link-dir/../canary/victim.txt",
      "link-dir/../canary/new.txt",
      "link-dir/../home/.ssh/id_rsa",
      "link-dir/../canary",
      "node_modules/pkg/../secret.txt",
      "node_modules/pkg/../pwned.txt",
      "node_modules/pkg/../../home/.netrc",
      "node_modules/pkg/..",
      "link-dir/../project/notes.txt",
      "src/parent/../notes.txt",
    ],
    protectedNames: [
      ".goat/settings.json",
      ".claude/settings.json",
      ".mcp.json",
      ".bashrc",
      ".envrc",
      ".gitmodules",
      ".git/hooks/pre-commit",
      ".git/config",
      ".git/commondir",
      ".git/config.worktree",
      ".GOAT/settings.json",
      ".vscode/tasks.json",
      "src/.envrc",
      ".goat",
      ".claude",
    ],
    special: [
      "/proc/self/environ",
      "/proc/self/cwd/../canary/secret.txt",
      `/proc/self/root${quote(path.join(w.canary, "secret.txt"))}`,
      "/dev/stdin",
      "-",
      "$HOME/.netrc",
      '"$HOME"/.ssh/id_rsa',
      "$'../canary/secret.txt'",
      "'../canary/secret.txt'",
      '"link-dir"/secret.txt',
      "{notes.txt,../canary/secret.txt}",
      "../canary/*",
    ],
  };
}

/** Which kinds a path is drawn from, and how often (weights). */
const PATH_WEIGHTS: ReadonlyArray<[keyof PathPool, number]> = [
  ["inside", 8],
  ["fresh", 3],
  ["outside", 3],
  ["throughLink", 3],
  ["dotDotAfterLink", 3],
  ["protectedNames", 2],
  ["special", 2],
];

/** A path word; `tags` gets its kind. */
export function pickPath(
  rng: Rng,
  pool: PathPool,
  tags: string[],
  kinds?: ReadonlyArray<keyof PathPool>,
): string {
  const allowed = PATH_WEIGHTS.filter(([k]) => !kinds || kinds.includes(k));
  const total = allowed.reduce((sum, [, weight]) => sum + weight, 0);
  let r = rng.next() * total;
  for (const [kind, weight] of allowed) {
    r -= weight;
    if (r < 0) {
      if (kind !== "inside" && kind !== "fresh") tags.push(`path:${kind}`);
      return rng.pick(pool[kind]);
    }
  }
  return rng.pick(pool.inside);
}

/** Values for options whose value the specs call text: numbers, patterns, formats, and paths posing as text. */
export function pickText(rng: Rng, pool: PathPool, tags: string[]): string {
  if (rng.chance(0.2)) return pickPath(rng, pool, tags);
  return rng.pick([
    "5",
    "0",
    "x",
    "auto",
    "never",
    "'%s'",
    ",",
    "1,2",
    "-",
    "'a.*'",
    "name",
    "always",
    "'$(id)'",
    "3K",
    "recurse",
    "read",
    "'x[$(id)]'",
  ]);
}

/** Commands that touch a canary when they run (to hide where bash evaluates); `>&2` keeps output visible. */
export function payloads(w: FuzzWorld): string[] {
  const c = (rel: string) => quote(path.join(w.canary, rel));
  return [
    "cat ~/.ssh/id_rsa >&2",
    `cat ${c("secret.txt")} >&2`,
    `touch ${c("pwned")}`,
    `rm -f ${c("victim.txt")}`,
    `chmod 600 ${c("secret.txt")}`,
    "printenv AWS_SECRET_ACCESS_KEY >&2",
    `mkdir -p ${quote(path.join(w.project, ".goat"))}`,
    `ls ${quote(w.canary)} >&2`,
    "sh tools/run.sh >&2",
    "echo $AWS_SECRET_ACCESS_KEY >&2",
  ];
}
