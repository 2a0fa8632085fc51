/**
 * The world of the differential fuzzer: a template tree the permission engine judges, copied afresh
 * for every jail run. Inside `root`: the project (the working directory: a git repository, files with
 * spaces in their names, a directory link out of it as pnpm workspaces have, file links in and out, a
 * dangling link, a link to its own parent, an executable script, lists of outside paths, a template
 * folder holding protected names), a canary tree outside the project, and a fake home with key files.
 * Every canary file holds the run's secret token, so seeing the token anywhere it should not be is a
 * read; one canary file's name holds a second token, so seeing that is a listing.
 */
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** The directories and tokens of one fuzz run. */
export interface FuzzWorld {
  /** Holds everything of the run (template, copies, the jail's /tmp); removed at the end. */
  base: string;
  /** The template: what the engine judges, and where each copy is mounted inside the jail. */
  root: string;
  /** The working directory and only allowed directory. */
  project: string;
  /** Files outside the project that no allowed line may touch. */
  canary: string;
  /** The fake home directory ($HOME, `~`), with key files. */
  home: string;
  /** In every canary file's content and in the environment's secret: seeing it is a read. */
  secret: string;
  /** In a canary file's name only: seeing it is a listing of a directory outside. */
  listToken: string;
  /** The value of AWS_SECRET_ACCESS_KEY in the jail. */
  envSecret: string;
}

/** Files of the canary tree and the home directory, relative to `root`, with their modes. */
const CANARY_FILES: ReadonlyArray<[string, number]> = [
  ["canary/secret.txt", 0o644],
  ["canary/victim.txt", 0o644],
  ["canary/private.key", 0o600],
  ["canary/sub/deep.txt", 0o644],
  ["canary/pkg/index.js", 0o644],
  ["canary/pkg/package.json", 0o644],
  ["home/.ssh/id_rsa", 0o600],
  ["home/.aws/credentials", 0o600],
  ["home/.netrc", 0o600],
  ["home/.bashrc", 0o644],
];

/** Builds the template world under a new temp directory. */
export function makeFuzzWorld(): FuzzWorld {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-dfuzz-")));
  const root = path.join(base, "w");
  const secret = `CANARY${crypto.randomBytes(8).toString("hex")}`;
  const world: FuzzWorld = {
    base,
    root,
    project: path.join(root, "project"),
    canary: path.join(root, "canary"),
    home: path.join(root, "home"),
    secret,
    listToken: `LISTED${crypto.randomBytes(6).toString("hex")}`,
    envSecret: `${secret}-env`,
  };
  buildCanaries(world);
  buildProject(world);
  return world;
}

/** Removes everything the run made. */
export function removeFuzzWorld(world: FuzzWorld): void {
  fs.rmSync(world.base, { recursive: true, force: true });
}

function write(file: string, text: string, mode = 0o644): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  fs.chmodSync(file, mode);
}

function buildCanaries(w: FuzzWorld): void {
  for (const [rel, mode] of CANARY_FILES) write(path.join(w.root, rel), `${w.secret}:${rel}\n`, mode);
  write(path.join(w.canary, `${w.listToken}.txt`), "listed\n");
  fs.chmodSync(path.join(w.home, ".ssh"), 0o700);
}

function buildProject(w: FuzzWorld): void {
  const p = (rel: string) => path.join(w.project, rel);
  write(p("notes.txt"), "alpha\nbeta\ngamma\n");
  write(p("README.md"), "# fixture\nsome text\n");
  write(p("src/a.ts"), "export const a = 1;\n");
  write(p("src/sub/b.ts"), "export const b = 2;\n");
  write(p("data.json"), '{"name":"fixture","list":[1,2,3]}\n');
  write(p("dir with space/file one.txt"), "one\n");
  // Run by anything that executes project files: what it does is always a canary hit.
  write(
    p("tools/run.sh"),
    // Its own PATH: a line that set PATH to plant it would otherwise leave it without cat and touch.
    `#!/bin/sh\nPATH=/usr/bin:/bin\ncat "${w.home}/.ssh/id_rsa"\ntouch "${w.canary}/pwned-by-run-sh"\n`,
    0o755,
  );
  // Lists of outside paths, as `--files0-from`, `-f` and friends would read them.
  const outside = [path.join(w.canary, "secret.txt"), path.join(w.home, ".ssh/id_rsa")];
  write(p("lists/files0"), outside.map((f) => `${f}\0`).join(""));
  write(p("lists/paths.txt"), `${outside.join("\n")}\n`);
  // Protected names one level down: copying this folder elsewhere creates them anew.
  write(p("templates/.claude/settings.json"), '{"hooks":{}}\n');
  write(p("templates/.envrc"), "export X=1\n");
  write(p("templates/plain.txt"), "plain\n");
  fs.symlinkSync("notes.txt", p("link-in"));
  fs.symlinkSync(path.join(w.canary, "secret.txt"), p("link-out"));
  fs.symlinkSync(w.canary, p("link-dir"));
  fs.symlinkSync(path.join(w.canary, "dangling-target"), p("dangling"));
  fs.mkdirSync(p("node_modules"));
  fs.symlinkSync("../../canary/pkg", p("node_modules/pkg")); // a workspace package, relative
  fs.symlinkSync("..", p("src/parent")); // in scope here; one level up if copied to the top
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: w.project,
      stdio: "ignore",
      env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
    });
  git("init", "-q");
  git("add", "-A");
  git("-c", "user.name=fuzz", "-c", "user.email=fuzz@example.com", "commit", "-qm", "init");
  write(p("notes.txt"), "alpha\nbeta\ngamma\ndelta\n"); // an unstaged change for git diff
}

/** The paths of every canary file, absolute. */
export function canaryFiles(w: FuzzWorld): string[] {
  return CANARY_FILES.map(([rel]) => path.join(w.root, rel));
}
