/**
 * The world the escape suite attacks: a project (the scope) with symlinks out of it, an outside
 * directory holding a secret, a home directory with shell start-up files, and a fingerprint of
 * everything outside the project so any change there is seen after each call. Also the attack
 * material: path spellings that reach outside, and command templates for every class of escape the
 * issue listed, and a seeded random generator so a failing case reproduces from its seed.
 */
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** The directories of one run. */
export interface World {
  root: string;
  project: string;
  outside: string;
  home: string;
  /** A token that only files outside the project contain: seeing it in a result is a read escape. */
  secret: string;
  /** Files outside that attacks try to create, under a name only this run uses. */
  marker: string;
  /** The name of a file outside: seeing it in a result means a listing reached outside. */
  listed: string;
}

/** Builds the world under a new temp directory. */
export function makeWorld(): World {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-escape-")));
  const world: World = {
    root,
    project: path.join(root, "project"),
    outside: path.join(root, "outside"),
    home: path.join(root, "home"),
    secret: `SECRET-${crypto.randomBytes(6).toString("hex")}`,
    marker: `pwn-${crypto.randomBytes(4).toString("hex")}`,
    listed: `listed-${crypto.randomBytes(4).toString("hex")}.txt`,
  };
  const { project, outside, home, secret } = world;
  fs.mkdirSync(path.join(project, "src"), { recursive: true });
  fs.mkdirSync(outside);
  fs.mkdirSync(home);
  fs.writeFileSync(path.join(outside, "secret.txt"), `${secret}\n`);
  fs.writeFileSync(path.join(outside, world.listed), `${secret}\n`);
  fs.writeFileSync(path.join(home, ".bashrc"), `# ${secret}\n`);
  fs.writeFileSync(path.join(project, "src", "a.ts"), "export const a = 1;\n");
  fs.writeFileSync(path.join(project, "notes.txt"), "x\n");
  execFileSync("git", ["init", "-q", project]);
  // Ways out through the file system: a linked directory, file, parent, and a dangling link.
  fs.symlinkSync(outside, path.join(project, "link-dir"));
  fs.symlinkSync(path.join(outside, "secret.txt"), path.join(project, "link-file"));
  fs.symlinkSync(root, path.join(project, "parent-link"));
  fs.symlinkSync(path.join(outside, `${world.marker}-dangling`), path.join(project, "dangling"));
  return world;
}

/** A fingerprint of every entry under `dir` except `skip`: type, size, time, content hash, link target. */
export function fingerprint(dir: string, skip: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (p === skip) continue;
      const st = fs.lstatSync(p);
      if (entry.isSymbolicLink()) out.set(p, `link:${fs.readlinkSync(p)}`);
      else if (entry.isDirectory()) {
        out.set(p, `dir:${st.mode}`);
        walk(p);
      } else {
        const hash = crypto.createHash("sha1").update(fs.readFileSync(p)).digest("hex");
        out.set(p, `file:${st.size}:${st.mtimeMs}:${st.mode}:${hash}`);
      }
    }
  };
  walk(dir);
  return out;
}

/** The entries that differ between two fingerprints. */
export function changes(before: Map<string, string>, after: Map<string, string>): string[] {
  const diff: string[] = [];
  for (const [p, v] of after)
    if (before.get(p) !== v) diff.push(before.has(p) ? `changed ${p}` : `created ${p}`);
  for (const p of before.keys()) if (!after.has(p)) diff.push(`removed ${p}`);
  return diff;
}

/** A small seeded generator (mulberry32), so a failure names the seed that reproduces it. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Spellings of the outside secret file, as a tool or a shell word would give them (relative to the project). */
export function readSpellings(w: World): string[] {
  const secret = path.join(w.outside, "secret.txt");
  return [
    "../outside/secret.txt",
    secret,
    secret.replaceAll("/", "//"),
    `/proc/self/cwd/../outside/secret.txt`,
    "link-dir/secret.txt",
    "link-file",
    "parent-link/outside/secret.txt",
    "src/../../outside/secret.txt",
    `${"x/../".repeat(400)}../outside/secret.txt`,
    `~/../outside/secret.txt`,
    "~/.bashrc",
    "\u2024\u2024/outside/secret.txt", // one-dot leaders: a name, not `..`
    "\uff0e\uff0e/outside/secret.txt", // fullwidth dots: a name, not `..`
    `${"a".repeat(5000)}/../../outside/secret.txt`,
  ];
}

/** Spellings of a new file outside the project (or of a protected file), for writes. */
export function writeSpellings(w: World, n: number): string[] {
  const name = `${w.marker}-${n}`;
  return [
    `../outside/${name}`,
    path.join(w.outside, name),
    path.join(w.outside, name).replaceAll("/", "//"),
    `/proc/self/cwd/../outside/${name}`,
    `link-dir/${name}`,
    "link-file",
    "dangling",
    `parent-link/outside/${name}`,
    `${"x/../".repeat(400)}../outside/${name}`,
    `~/${name}`,
    "~/.bashrc",
    `/tmp/${name}`,
  ];
}

/** Bash templates that read `{R}` (a file outside); each is one class of escape. */
export const READ_TEMPLATES: readonly string[] = [
  "cat {R}",
  "head -n 3 {R}",
  "cat < {R}",
  "sed -n p {R}",
  "sort {R}",
  "uniq {R}",
  "grep -r SECRET {R}",
  "rg SECRET {R}",
  "diff {R} /dev/null",
  "git diff --no-index {R} /dev/null",
  "jq -R . {R}",
  "awk 1 {R}",
  "less {R}",
  "env cat {R}",
  "xargs cat <<< {R}",
  "echo {R} | xargs cat",
  "cat {{R},src/a.ts}",
  "cat ${X:-{R}}",
  "cat $(echo {R})",
  "cat `echo {R}`",
  "cat <(cat {R})",
  "cat <<EOF\n$(cat {R})\nEOF",
  "echo $(( $(cat {R} | wc -c) ))",
  "cd .. && cat outside/secret.txt",
  "cd link-dir && cat secret.txt",
  "cat link-dir/*",
  "cat */secret.txt",
  "grep -R SECRET .",
  "rg --follow SECRET",
  "rg -L SECRET",
  "find -L . -name secret.txt -exec cat {} ;",
  "find . -name 'link*' -exec cat {}/secret.txt ;",
  "ls -LR link-dir",
  "tree -l .",
  "du -L -a .",
  "git -c core.pager='cat {R}' -p log",
  "git show --no-index {R}",
  "sed '1r {R}' src/a.ts",
  "x=$'{R}'; cat $x",
  "cat $HOME/.bashrc",
  "cat ${HOME}/../outside/secret.txt",
];

/** Bash templates that write `{W}` (a path outside, or protected); each is one class of escape. */
export const WRITE_TEMPLATES: readonly string[] = [
  "touch {W}",
  "echo x > {W}",
  "echo x >> {W}",
  "echo x | tee {W}",
  "cp src/a.ts {W}",
  "mv notes.txt {W}",
  "mkdir -p {W}",
  "uniq src/a.ts {W}",
  "sort -o {W} src/a.ts",
  "sort src/a.ts --output={W}",
  "tree -o {W}",
  "find . -maxdepth 0 -fprint {W}",
  "find . -maxdepth 0 -exec touch {W} ;",
  "sed -n 'w {W}' src/a.ts",
  "sed 's/a/b/w {W}' src/a.ts",
  "sed '1e touch {W}' src/a.ts",
  "awk 'BEGIN{print 1 > \"{W}\"}'",
  "xargs touch <<< {W}",
  "env touch {W}",
  "rg --pre 'sh -c \"touch {W}\"' export src",
  "touch {{W},x}",
  "touch ${X:-{W}}",
  "touch $'{W}'",
  "touch $(echo {W})",
  "cat src/a.ts > >(tee {W})",
  "cp src/a.ts `echo {W}`",
  "(cd .. && touch outside/{N})",
  "cd link-dir && touch {N}",
  "git -c core.pager='touch {W}' -p log",
  "git diff --output={W}",
  "PATH=. ls; touch {W}",
  "ls() { touch {W}; }; ls",
  "for f in {W}; do touch $f; done",
  "echo $((x[$(touch {W})]))",
];
