/**
 * The differential fuzzer (issue #29, part 4): the permission engine's verdict against what really
 * happens. Lines are generated from a grammar of the allow-listed programs (taken from the engine's
 * own tables), their flags and near misses, path spellings, expansions, heredocs, redirections, links
 * and renames; the real engine judges each in default and acceptEdits mode (cwd a fixture project, no
 * additional directories, no canUseTool); every line it allows without asking runs with `bash -c` in a
 * bubblewrap jail over a copy of the fixture, with canary files outside the project and in a fake home,
 * a canary secret in the environment, and protected names watched inside the project. Any canary
 * touched or read fails the test, naming the seed and the line.
 *
 * GOAT_FUZZ_SEED=<n> reproduces a run (`random` picks a new seed); GOAT_FUZZ_LINES sets the lines per
 * mode; GOAT_FUZZ_PIN_SECONDS bounds the time spent pinning hits on lines (per mode).
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PermissionMode } from "../../src/permissions/index.js";
import { ESCAPE_CORPUS } from "./differential-corpus.js";
import { findJail, settleJailCopies } from "./differential-jail.js";
import { lineGenerator } from "./differential-lines.js";
import { escapeClasses, report } from "./differential-report.js";
import {
  engineAllows,
  fuzzMode,
  hitsOf,
  locateCulprits,
  type ModeFigures,
  type RunSetup,
} from "./differential-run.js";
import { type FuzzWorld, makeFuzzWorld, removeFuzzWorld } from "./differential-world.js";

const SEED =
  process.env.GOAT_FUZZ_SEED === "random"
    ? crypto.randomInt(2 ** 31)
    : Number(process.env.GOAT_FUZZ_SEED ?? 29_2026);
const LINES = Number(process.env.GOAT_FUZZ_LINES ?? 2000);
/** Seconds per mode for pinning hits on their lines (GOAT_FUZZ_PIN_SECONDS); see RunSetup.pinBudgetMs. */
const PIN_SECONDS = Number(process.env.GOAT_FUZZ_PIN_SECONDS ?? 60);
const MODES: PermissionMode[] = ["default", "acceptEdits"];

const jail = await findJail();
if ("problem" in jail) console.warn(`SKIPPED: ${jail.problem}`);

describe.skipIf("problem" in jail)("differential fuzz: engine verdict against a real run in a jail", () => {
  let world: FuzzWorld;
  let setup: RunSetup;
  let savedHome: string | undefined;
  const figures: Record<string, ModeFigures> = {};
  const started = performance.now();

  beforeAll(() => {
    world = makeFuzzWorld();
    savedHome = process.env.HOME;
    process.env.HOME = world.home; // `~` means the fake home to the engine, as it does in the jail
    setup = {
      bwrap: (jail as { bwrap: string }).bwrap,
      world,
      batchSize: 40,
      pinBudgetMs: PIN_SECONDS * 1000,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: world.home,
        LANG: "C.UTF-8",
        TMPDIR: "/tmp",
        AWS_SECRET_ACCESS_KEY: world.envSecret,
      },
    };
  });

  afterAll(async () => {
    await settleJailCopies();
    if (savedHome === undefined) delete process.env.HOME;
    else process.env.HOME = savedHome;
    if (world) removeFuzzWorld(world);
    if (Object.keys(figures).length > 0) console.log(report(SEED, figures, performance.now() - started));
  });

  it("the detector sees every kind of canary hit, and none in harmless lines", async () => {
    const harmlessReads = [
      "ls -la",
      "cat notes.txt 'dir with space/file one.txt'",
      "git status",
      "git log --oneline",
      "git diff",
      "grep -r alpha .",
      "rg alpha",
      "find . -name '*.ts'",
      "du -a .",
      "tree",
      "ls -l link-dir link-out dangling node_modules/pkg",
      "stat link-out; readlink link-out; file link-out; realpath link-out",
      "jq . data.json",
      "sed -n p notes.txt | wc -l",
    ];
    expect(await hitsOf(setup, harmlessReads, true)).toEqual([]);
    const harmlessEdits = [
      "echo x > new.txt",
      "mkdir -p d/e",
      "cp notes.txt c.txt && mv c.txt d.txt && rm d.txt",
      "touch src/a.ts",
      "sed -i s/alpha/ALPHA/ notes.txt",
    ];
    expect(await hitsOf(setup, harmlessEdits, false)).toEqual([]);
    const escapes: Array<[string, RegExp]> = [
      ["cat ~/.ssh/id_rsa", /shows the secret/],
      ["head -c1 ../canary/secret.txt > /dev/null", /outside: read canary\/secret.txt/],
      ["wc -l < ~/.netrc > /dev/null", /outside: read home\/.netrc/],
      ["ls ../canary > /dev/null", /outside: listed canary/],
      ["ls .. > /dev/null", /outside: listed \./],
      ["touch ../canary/new", /outside: created canary\/new/],
      ["echo x >> link-out", /outside: changed canary\/secret.txt \(content, mtime\)/],
      ["chmod 600 ../canary/secret.txt", /outside: changed canary\/secret.txt \(mode/],
      ["rm ../canary/victim.txt", /outside: removed canary\/victim.txt/],
      ["touch -d 2001-01-01 ~/.netrc", /outside: changed home\/.netrc \(mtime\)/],
      ["echo x > dangling", /outside: created canary\/dangling-target/],
      ["mkdir .goat", /protected: created project\/.goat/],
      ["echo x >> .git/config", /protected: changed project\/.git\/config/],
      ["cp -r templates/. .", /protected: created project\/.claude/],
      ["cat ../canary/secret.txt > copied.txt", /secret copied into project\/copied.txt/],
      ["echo $AWS_SECRET_ACCESS_KEY > env.txt", /secret copied into project\/env.txt/],
      ["printenv AWS_SECRET_ACCESS_KEY", /shows the secret/],
      ["touch /tmp/x /var/tmp/y", /temp: wrote \/tmp\/x.*temp: wrote \/var\/tmp\/y/s],
      ["touch /usr/x", /tried to write outside/],
    ];
    for (const [line, seen] of escapes) {
      expect((await hitsOf(setup, [line], false)).join("\n"), line).toMatch(seen);
    }
    expect(await hitsOf(setup, ["echo x > new.txt"], true)).toEqual([
      "read-only line changed the project: created project/new.txt",
    ]);
  }, 60_000);

  it("pins a hit on the one line of a batch that does it", async () => {
    const harmless = ["ls", "cat notes.txt", "git status", "wc -l notes.txt", "echo hi"];
    const batch = [...harmless, "touch ../canary/pwned", ...harmless].map((text) => ({ text, tags: [] }));
    let runs = 0;
    const { culprits } = await locateCulprits(setup, batch, false, () => runs++);
    expect(culprits.map((c) => c.line.text)).toEqual(["touch ../canary/pwned"]);
    expect(runs).toBeLessThan(batch.length);
  }, 60_000);

  it.each(MODES)(
    "no line that got out before gets out in %s",
    async (mode) => {
      const allows = engineAllows(world, mode);
      const allowed = [];
      for (const [template, what] of ESCAPE_CORPUS) {
        const text = template.replaceAll("{canary}", world.canary).replaceAll("{project}", world.project);
        if (await allows(text)) allowed.push({ text, tags: [what] });
      }
      const { culprits } = await locateCulprits(setup, allowed, mode === "default", () => {});
      const found = culprits.map(
        (c) => `${c.line.tags[0]}: ${JSON.stringify(c.line.text)}: ${c.hits.join("; ")}`,
      );
      expect(found).toEqual([]);
    },
    300_000,
  );

  it.each(MODES)(
    `no line the engine allows without asking in %s touches a canary (seed ${SEED})`,
    async (mode) => {
      const next = lineGenerator(world, SEED + (mode === "default" ? 0 : 1));
      const lines = Array.from({ length: LINES }, next);
      const f = await fuzzMode(setup, mode, lines);
      figures[mode] = f;
      const found = escapeClasses(f.escapes).map(
        (c) => `${c.key}: ${JSON.stringify(c.example.part?.line.text ?? c.example.line.text)}`,
      );
      for (const u of f.unpinned)
        found.push(`a batch of ${u.lines.length} lines (hits not pinned, out of time): ${u.hits.join("; ")}`);
      expect(found, `seed ${SEED}: GOAT_FUZZ_SEED=${SEED} reproduces`).toEqual([]);
    },
    600_000,
  );
});
