/**
 * Permission-check benchmark: what deciding one Bash call costs for typical command lines, split into
 * the grammar's parse (tree-sitter-bash WASM, tree copied out), parse + word analysis, and the whole
 * engine decision (rules, effects, realpath of every path, the git config check), against the
 * hand-written splitter and read-only list it replaced (kept in bench/support/legacy only as this
 * baseline), as ratios in the same run. Also the one-off cost of loading the grammar on the first
 * Bash call. The check must stay under 1 ms per line. Imports the built code: run
 * `npx tsc -p tsconfig.build.json` first. Prints a table and a final JSON line.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { splitBashCommand as legacySplit } from "./support/legacy/bash-split.mjs";
import { isReadOnlyCommand as legacyReadOnly } from "./support/legacy/read-only-commands.mjs";

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/permissions");
const load = (file) => import(pathToFileURL(path.join(dist, file)).href);
const t0 = performance.now();
const { createPermissionEngine } = await load("engine.js");
const importMs = performance.now() - t0;
const { loadShellParser, parseShell } = await load("shell-parser.js");
const { splitLoaded } = await load("bash-split.js");

/** Lines a coding agent typically runs: reads, a compound, a search, git, a write, an odd one. */
const LINES = [
  "ls -la",
  "git status",
  "cat src/index.ts | head -n 50",
  "rg -n 'createPermissionEngine' src --type ts",
  "git log --oneline -n 20 && git diff --stat",
  "find . -name '*.ts' -not -path './node_modules/*' | wc -l",
  "npm test -- --run test/permissions",
  "mkdir -p build && echo done > build/stamp.txt",
  'grep -rn "TODO" src | sort | uniq -c | sort -rn | head -20',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell line, not a template
  "echo ${HOME:-$(id)} {a,b}",
];
const ITER = Number(process.env.BENCH_ITER ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-bench-perm-")));
fs.mkdirSync(path.join(cwd, ".git"));
fs.writeFileSync(path.join(cwd, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n");
const signal = new AbortController().signal;
const request = (command) => ({
  toolName: "Bash",
  input: { command },
  sideEffect: "mutating",
  toolUseID: "b",
  signal,
});
const engine = createPermissionEngine({ cwd, allowedTools: ["Bash(npm test:*)"] });

// Loading the grammar (WASM compile and a warm-up parse) happens once per process, in the background
// from a session's start (preloadShellParser): measured separately, and the first check after it.
const loadStart = performance.now();
await loadShellParser();
const grammarLoadMs = performance.now() - loadStart;
const first = performance.now();
await engine.decide(request("git diff --stat && cat README.md | head -n 5"));
const firstCheckMs = performance.now() - first;

function cpuMicros() {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/**
 * Microseconds per call for each line: the fastest of ROUNDS rounds of ITER calls, timed in CPU time
 * of this process (user + system), so time spent waiting for a core on a shared machine does not count,
 * for the old and the new code alike.
 */
async function perCallUs(fn) {
  for (let i = 0; i < 500; i++) await fn(LINES[i % LINES.length]); // warm-up: JIT
  return Promise.all(
    LINES.map(async () => 0), // placeholder so the array has one slot per line
  ).then(async (slots) => {
    const rounds = slots.map(() => []);
    for (let r = 0; r < ROUNDS; r++) {
      for (const [i, line] of LINES.entries()) {
        const start = cpuMicros();
        for (let k = 0; k < ITER; k++) await fn(line);
        rounds[i].push((cpuMicros() - start) / ITER);
      }
    }
    return rounds.map((xs) => Math.min(...xs));
  });
}

const legacy = await perCallUs(async (line) => {
  const split = legacySplit(line);
  return split.ok && split.commands.every(legacyReadOnly);
});
const parse = await perCallUs(async (line) => parseShell(line));
const split = await perCallUs(async (line) => splitLoaded(line));
const current = await perCallUs((line) => engine.decide(request(line)));
fs.rmSync(cwd, { recursive: true, force: true });

const table = LINES.map((line, i) => ({
  line: line.length > 40 ? `${line.slice(0, 37)}...` : line,
  legacyUs: +legacy[i].toFixed(1),
  parseUs: +parse[i].toFixed(1),
  splitUs: +split[i].toFixed(1),
  checkUs: +current[i].toFixed(1),
  ratio: +(current[i] / legacy[i]).toFixed(1),
}));
console.table(table);
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const summary = {
  bench: "permission-check",
  iterations: ITER,
  importMs: +importMs.toFixed(1),
  grammarLoadMs: +grammarLoadMs.toFixed(1),
  firstCheckMs: +firstCheckMs.toFixed(1),
  meanParseUs: +mean(parse).toFixed(1),
  meanSplitUs: +mean(split).toFixed(1),
  meanCheckUs: +mean(current).toFixed(1),
  maxCheckUs: +Math.max(...current).toFixed(1),
  meanLegacySplitUs: +mean(legacy).toFixed(1),
  ratioVsLegacy: +(mean(current) / mean(legacy)).toFixed(1),
  underOneMs: Math.max(...current) < 1000,
};
console.log(JSON.stringify(summary));
