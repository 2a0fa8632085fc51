/**
 * Benchmark: the interactive `goat` in a pseudo-terminal (util-linux `script`), against an instant
 * local model server. Measures, median of N rounds:
 *   - start → prompt: from spawning to the prompt drawn (the editor's "> " after the banner);
 *   - Enter → first paint: from typing Enter to the prompt echoed and the status line drawn;
 *   - Enter → first answer text on screen.
 * Baseline in the same run and the same pty: `node -e` printing a prompt (what Node and `script`
 * cost before any of goat's code). Target: start → prompt under 150 ms.
 *
 *   npm run build && node bench/tui.mjs [runs=10] [cli=the package bin]
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startInstantServer } from "./support/instant-server.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const CLI = resolve(
  root,
  process.argv[3] ?? JSON.parse(readFileSync(join(root, "package.json"), "utf8")).bin.goat,
);
const RUNS = Number(process.argv[2] ?? 10);
if (!existsSync(CLI)) {
  console.error(`${CLI} is missing: run npm run build first`);
  process.exit(1);
}

const server = await startInstantServer();
const home = mkdtempSync(join(tmpdir(), "goat-bench-tui-"));
const env = {
  PATH: process.env.PATH,
  HOME: home,
  GOAT_HOME: home,
  TERM: "xterm-256color",
  COLUMNS: "120",
  LINES: "40",
  ANTHROPIC_BASE_URL: `http://127.0.0.1:${server.port}`,
  ANTHROPIC_API_KEY: "bench",
};
const ANSI = /\x1b\[[0-9;?<>=]*[A-Za-z~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\r/g;

/** Spawns `node args` in a pty; resolves with the times (ms after spawn) the marks appeared. */
function session(args, { prompt, answer }) {
  return new Promise((done, fail) => {
    const command = ["node", ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
    const t0 = performance.now();
    const child = spawn("script", ["-qfec", command, "/dev/null"], {
      env,
      cwd: home,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let raw = "";
    const times = {};
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      fail(new Error(`no prompt in time; screen: ${raw.replace(ANSI, "").slice(-500)}`));
    }, 15_000);
    child.stdout.on("data", (b) => {
      raw += b;
      const text = raw.replace(ANSI, "");
      const now = performance.now() - t0;
      if (times.prompt === undefined && prompt.test(text)) {
        times.prompt = now;
        if (!answer) {
          child.stdin.write("\x04");
          return;
        }
        setTimeout(() => {
          times.enter = performance.now() - t0;
          times.mark = raw.length;
          child.stdin.write("hello bench\r");
        }, 50);
        return;
      }
      if (times.enter === undefined) return;
      const after = raw.slice(times.mark).replace(ANSI, "");
      if (times.paint === undefined && after.includes("Thinking")) times.paint = now;
      if (times.text === undefined && after.includes(answer)) {
        times.text = now;
        child.stdin.write("\x04");
      }
    });
    child.on("close", () => {
      clearTimeout(timer);
      done(times);
    });
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const base = [];
const goat = [];
for (let round = -1; round < RUNS; round++) {
  const b = await session(
    ["-e", "process.stdout.write('ready> '); process.stdin.once('data', () => process.exit(0))"],
    {
      prompt: /ready> /,
    },
  );
  const g = await session([CLI, "--no-session-persistence"], {
    // The banner's last line (older builds worded it "Ctrl-D to exit").
    prompt: /Ctrl-D (exits|to exit)/,
    answer: "The quick brown",
  });
  if (round >= 0) {
    base.push(b);
    goat.push(g);
  }
}
await server.close();
rmSync(home, { recursive: true, force: true });

const baseline = median(base.map((r) => r.prompt));
const toPrompt = median(goat.map((r) => r.prompt));
const paint = median(goat.map((r) => r.paint - r.enter));
const text = median(goat.map((r) => r.text - r.enter));
const ms = (x) => `${x.toFixed(1)} ms`;
console.log(`interactive goat in a pty, median of ${RUNS} rounds (ratio against node -e printing a prompt)`);
console.log(`${"node -e: spawn → prompt".padEnd(34)} ${ms(baseline).padStart(10)}  1.00x`);
console.log(
  `${"goat: spawn → prompt".padEnd(34)} ${ms(toPrompt).padStart(10)}  ${(toPrompt / baseline).toFixed(2)}x`,
);
console.log(`${"goat: Enter → first paint".padEnd(34)} ${ms(paint).padStart(10)}`);
console.log(`${"goat: Enter → first answer text".padEnd(34)} ${ms(text).padStart(10)}`);
console.log(`target: goat start → prompt ≤ 150 ms: ${toPrompt <= 150 ? "met" : "missed"}`);
console.log(
  JSON.stringify({
    bench: "tui",
    runs: RUNS,
    node_prompt_ms: +baseline.toFixed(1),
    start_to_prompt_ms: +toPrompt.toFixed(1),
    start_ratio: +(toPrompt / baseline).toFixed(2),
    enter_to_first_paint_ms: +paint.toFixed(1),
    enter_to_first_text_ms: +text.toFixed(1),
  }),
);
