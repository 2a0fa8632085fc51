/**
 * Benchmark: what workspace trust costs `goat` at start-up when there is nothing to ask. Two folders:
 *   - empty: no project configuration at all (the check reads a few missing files);
 *   - trusted: `.goat/settings.json` declares a hook and an allow rule, and the folder is in
 *     `$GOAT_HOME/trust.json` (the check also reads and searches the trust file).
 * Measured, in the same run:
 *   1. in process, `settleProjectTrust` per call (interactive and headless), against the baseline of
 *      `loadSettings` reading the same folder's settings files (what every start does anyway);
 *   2. the interactive `goat` in a pseudo-terminal (util-linux `script`), spawn → prompt drawn, median of
 *      N interleaved rounds, against a build without workspace trust when one is given (else `node -e`
 *      printing a prompt, as bench/tui.mjs).
 *
 *   npm run build && node bench/trust-start.mjs [runs=15] [baseline-cli]
 *   (a baseline: `git stash -u && npm run build && cp -r dist/bin /tmp/goat-before && git stash pop && npm run build`,
 *   then pass /tmp/goat-before/goat.js; it must sit where it can resolve this repo's node_modules, or
 *   inside the repo, e.g. .bench-tmp/)
 */
import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startInstantServer } from "./support/instant-server.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const CLI = resolve(root, JSON.parse(readFileSync(join(root, "package.json"), "utf8")).bin.goat);
const RUNS = Number(process.argv[2] ?? 15);
const BASELINE_CLI = process.argv[3] ? resolve(process.argv[3]) : undefined;
for (const file of [CLI, join(root, "dist/cli/trust/settle.js"), ...(BASELINE_CLI ? [BASELINE_CLI] : [])]) {
  if (!existsSync(file)) {
    console.error(`${file} is missing: run npm run build first`);
    process.exit(1);
  }
}
const { settleProjectTrust } = await import(pathToFileURL(join(root, "dist/cli/trust/settle.js")).href);
const { loadSettings, settingsFiles } = await import(
  pathToFileURL(join(root, "dist/settings/files.js")).href
);

// The folders and a Goat home that trusts one of them.
const base = mkdtempSync(join(tmpdir(), "goat-bench-trust-"));
const home = join(base, "home");
const empty = join(base, "empty");
const trusted = join(base, "trusted");
for (const d of [home, empty, join(trusted, ".goat")]) mkdirSync(d, { recursive: true });
writeFileSync(
  join(trusted, ".goat", "settings.json"),
  JSON.stringify({
    hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true" }] }] },
    permissions: { allow: ["Bash(npm test:*)"] },
  }),
);
writeFileSync(
  join(home, "trust.json"),
  JSON.stringify({ trustedFolders: { [realpathSync(trusted)]: { trustedAt: new Date().toISOString() } } }),
);
const env = { PATH: process.env.PATH, HOME: base, GOAT_HOME: home };

// 1. In process.
const noQuestions = () => {
  throw new Error("nothing should be asked here");
};
async function perCall(fn, n = 2000) {
  for (let i = 0; i < 200; i++) await fn();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn();
  return Number(process.hrtime.bigint() - t0) / 1000 / n;
}
const settle = (cwd, interactive) => () =>
  settleProjectTrust({ cwd, env, interactive, stderr: { write() {} }, openQuestions: noQuestions });
const inProcess = {};
for (const [name, cwd] of [
  ["empty", empty],
  ["trusted", trusted],
]) {
  const files = settingsFiles(cwd, env);
  inProcess[name] = {
    loadSettings_us: await perCall(() => loadSettings(files)),
    interactive_us: await perCall(settle(cwd, true)),
    headless_us: await perCall(settle(cwd, false)),
  };
}

// 2. In a pseudo-terminal.
const server = await startInstantServer();
const ptyEnv = {
  ...env,
  TERM: "xterm-256color",
  COLUMNS: "120",
  LINES: "40",
  ANTHROPIC_BASE_URL: `http://127.0.0.1:${server.port}`,
  ANTHROPIC_API_KEY: "bench",
};
const ANSI = /\x1b\[[0-9;?<>=]*[A-Za-z~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\r/g;

/** Spawns `node args` in a pty in `cwd`; resolves with ms from spawn until `prompt` shows. */
function toPrompt(args, cwd, prompt) {
  return new Promise((done, fail) => {
    const command = ["node", ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
    const t0 = performance.now();
    const child = spawn("script", ["-qfec", command, "/dev/null"], { env: ptyEnv, cwd, stdio: "pipe" });
    let raw = "";
    let at;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      fail(new Error(`no prompt in time; screen: ${raw.replace(ANSI, "").slice(-500)}`));
    }, 15_000);
    child.stdout.on("data", (b) => {
      raw += b;
      if (at === undefined && prompt.test(raw.replace(ANSI, ""))) {
        at = performance.now() - t0;
        child.stdin.write("\x04");
      }
    });
    child.on("close", () => {
      clearTimeout(timer);
      if (raw.replace(ANSI, "").includes("Do you trust")) fail(new Error(`asked in ${cwd}`));
      else done(at);
    });
  });
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
// The editor's "> " after the banner: keys typed before it meet a terminal not yet in raw mode.
const GOAT_PROMPT = /Ctrl-D (exits|to exit)\n> /;
const before = BASELINE_CLI
  ? (cwd) => toPrompt([BASELINE_CLI, "--no-session-persistence"], cwd, GOAT_PROMPT)
  : (cwd) =>
      toPrompt(
        ["-e", "process.stdout.write('ready> '); process.stdin.once('data', () => process.exit(0))"],
        cwd,
        /ready> /,
      );
const samples = { empty: { before: [], after: [] }, trusted: { before: [], after: [] } };
for (let round = -1; round < RUNS; round++) {
  for (const [name, cwd] of [
    ["empty", empty],
    ["trusted", trusted],
  ]) {
    // Alternate which goes first, so neither always follows the other's exit.
    const after = () => toPrompt([CLI, "--no-session-persistence"], cwd, GOAT_PROMPT);
    let a;
    let b;
    if (round % 2 === 0) {
      b = await before(cwd);
      a = await after();
    } else {
      a = await after();
      b = await before(cwd);
    }
    if (round >= 0) {
      samples[name].before.push(b);
      samples[name].after.push(a);
    }
  }
}
await server.close();
rmSync(base, { recursive: true, force: true });

const us = (x) => `${x.toFixed(1)} µs`;
const ms = (x) => `${x.toFixed(1)} ms`;
const load = (() => {
  try {
    return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  } catch {
    return "n/a";
  }
})();
console.log(`workspace trust at start-up, nothing to ask (load average ${load})`);
console.log("in process, per call (ratio against loadSettings of the same folder):");
for (const [name, r] of Object.entries(inProcess)) {
  console.log(
    `  ${name.padEnd(8)} loadSettings ${us(r.loadSettings_us).padStart(9)} · settle interactive ${us(r.interactive_us).padStart(9)} ` +
      `(${(r.interactive_us / r.loadSettings_us).toFixed(2)}x) · headless ${us(r.headless_us).padStart(9)} (${(r.headless_us / r.loadSettings_us).toFixed(2)}x)`,
  );
}
const what = BASELINE_CLI ? "goat without workspace trust" : "node -e printing a prompt";
console.log(
  `interactive goat, spawn → prompt, median of ${RUNS} interleaved rounds (ratio against ${what}):`,
);
const summary = {};
for (const [name, s] of Object.entries(samples)) {
  const b = median(s.before);
  const a = median(s.after);
  summary[name] = { before_ms: +b.toFixed(1), after_ms: +a.toFixed(1), ratio: +(a / b).toFixed(3) };
  console.log(
    `  ${name.padEnd(8)} before ${ms(b).padStart(9)} · after ${ms(a).padStart(9)} · ${(a / b).toFixed(3)}x`,
  );
}
console.log(
  JSON.stringify({
    bench: "trust-start",
    runs: RUNS,
    baseline: BASELINE_CLI ? "goat without workspace trust" : "node -e",
    load,
    in_process: Object.fromEntries(
      Object.entries(inProcess).map(([k, v]) => [
        k,
        Object.fromEntries(Object.entries(v).map(([f, x]) => [f, +x.toFixed(2)])),
      ]),
    ),
    start_to_prompt: summary,
  }),
);
