/**
 * Sandbox start-up benchmark: what running a Bash command in the bubblewrap sandbox costs against the
 * same command unsandboxed, through the real Bash tool (`true` and `echo hi`, medians of BENCH_RUNS
 * calls, ratios in the same run), plus the bare spawn of `bwrap … bash -c true` against `bash -c true`
 * to show how much of it is bubblewrap itself, and the confinement of auto-allowed commands (read-only
 * and workspace levels, with the secret masks and the scrubbed environment) against the same command
 * unconfined. Linux with bwrap only; elsewhere it says so and exits 0.
 * Imports the built code: run `npx tsc -p tsconfig.build.json` first. Prints a table and a JSON line.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist");
const load = (file) => import(pathToFileURL(path.join(dist, file)).href);
const { createBashTool } = await load("tools/bash.js");
const { createBashSandbox } = await load("sandbox/bash-sandbox.js");
const { createConfinement } = await load("sandbox/confinement.js");
const { findExecutable } = await load("sandbox/bwrap.js");
const { runTool } = await load("tools/define-tool.js");
const { createToolSessionState, disposeToolSessionState } = await load("tools/types.js");

const RUNS = Number(process.env.BENCH_RUNS ?? 30);

if (process.platform !== "linux" || !findExecutable("bwrap")) {
  console.log("bubblewrap (bwrap) not available: sandbox benchmark skipped");
  console.log(JSON.stringify({ bench: "sandbox-start", skipped: "no bwrap" }));
  process.exit(0);
}

const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-bench-sandbox-")));
const state = createToolSessionState();
const ctx = {
  signal: new AbortController().signal,
  cwd,
  sessionId: "bench",
  toolUseId: "b",
  state,
  onUpdate() {},
};
const sandbox = createBashSandbox({ enabled: true }, { directories: () => [cwd] });
const plain = createBashTool();
const boxed = createBashTool({ sandbox });
const confinedTool = createBashTool({ confinement: createConfinement({ directories: () => [cwd] }) });

async function median(fn) {
  await fn(); // warm-up: the sandbox's one-time probe, page cache, JIT
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

async function viaTool(tool, command, confinement) {
  const r = await runTool(tool, { command }, confinement ? { ...ctx, confinement } : ctx);
  if (r.isError) throw new Error(`${command} failed: ${JSON.stringify(r.content)}`);
}

function spawnWait(file, args, launch) {
  return new Promise((resolve, reject) => {
    // The launcher's extra descriptors as the Bash tool gives them: the seccomp program on fd 3, the
    // status lines on launch.statusFd (bwrap waits on a descriptor it was told to use).
    const stdio = ["ignore", "ignore", "ignore"];
    if (launch?.fd3) stdio[3] = "pipe";
    if (launch?.statusFd !== undefined) {
      for (let fd = stdio.length; fd < launch.statusFd; fd++) stdio[fd] = "ignore";
      stdio[launch.statusFd] = "pipe";
    }
    const child = spawn(file, args, { stdio });
    if (launch?.fd3) child.stdio[3].end(launch.fd3);
    if (launch?.statusFd !== undefined) child.stdio[launch.statusFd].resume();
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited ${code}`))));
  });
}

const rows = [];
const results = {};
try {
  for (const command of ["true", "echo hi"]) {
    const base = await median(() => viaTool(plain, command));
    const ours = await median(() => viaTool(boxed, command));
    const key = command.replace(/\W+/g, "_");
    results[key] = {
      unsandboxedMs: +base.toFixed(2),
      sandboxedMs: +ours.toFixed(2),
      ratio: +(ours / base).toFixed(2),
    };
    rows.push([`Bash tool: ${command}`, ours, base]);
  }
  for (const level of ["read-only", "workspace"]) {
    const base = await median(() => viaTool(plain, "true"));
    const ours = await median(() => viaTool(confinedTool, "true", level));
    results[`confined_${level.replace("-", "_")}`] = {
      unconfinedMs: +base.toFixed(2),
      confinedMs: +ours.toFixed(2),
      ratio: +(ours / base).toFixed(2),
    };
    rows.push([`confined ${level}: true`, ours, base]);
  }
  // The bare launch, without the tool: what bubblewrap (namespaces, mounts, seccomp) adds by itself.
  const wrap = await sandbox.prepare(cwd);
  const launch = wrap(["/bin/bash", "-c", "true"]);
  const bare = await median(() => spawnWait("/bin/bash", ["-c", "true"]));
  const bwrapOnly = await median(() => spawnWait(launch.file, launch.args, launch));
  results.spawn = {
    bashMs: +bare.toFixed(2),
    bwrapMs: +bwrapOnly.toFixed(2),
    ratio: +(bwrapOnly / bare).toFixed(2),
  };
  rows.push(["spawn: bash -c true", bwrapOnly, bare]);
} finally {
  await disposeToolSessionState(state);
  fs.rmSync(cwd, { recursive: true, force: true });
}

console.log(
  `\n${"benchmark".padEnd(28)} ${"sandboxed ms".padStart(13)} ${"plain ms".padStart(9)} ${"ratio".padStart(6)}`,
);
for (const [name, ours, base] of rows) {
  console.log(
    `${name.padEnd(28)} ${ours.toFixed(2).padStart(13)} ${base.toFixed(2).padStart(9)} ${(ours / base).toFixed(2).padStart(6)}`,
  );
}
console.log(JSON.stringify({ bench: "sandbox-start", runs: RUNS, ...results }));
