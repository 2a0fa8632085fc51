/**
 * Runs command lines for real, in a throwaway bubblewrap jail over a fresh copy of the fuzz world:
 * the copy is mounted where the template lives (so every path the engine judged means the same file
 * inside), the rest of the filesystem is read-only, the network is unshared, and /tmp, /var/tmp and
 * /dev/shm are empty directories of ours, looked at afterwards. Lines go to one jail as a batch, each
 * in its own `bash -c` with the project as its directory and no stdin, its output (stdout and stderr,
 * capped) after a marker line; the copy and the temp directories are compared with how they started.
 */
import { execFileSync, spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { findExecutable, probeBwrap } from "../../src/sandbox/bwrap.js";
import { snapshot, stampCanaryTimes, type TrialStates } from "./differential-canaries.js";
import type { FuzzWorld } from "./differential-world.js";

/** Seconds one line may run before `timeout` ends it (and what it started). */
const LINE_SECONDS = 3;
/** Bytes of each line's output kept: enough to see a secret, bounded against `seq 1 1e9`. */
const OUTPUT_CAP = 64 * 1024;

/** Where bubblewrap is, or why the fuzzer cannot run here. */
export async function findJail(): Promise<{ bwrap: string } | { problem: string }> {
  if (process.platform !== "linux") return { problem: "the differential fuzzer needs Linux (bubblewrap)" };
  const bwrap = findExecutable("bwrap");
  if (!bwrap)
    return { problem: "the differential fuzzer needs bubblewrap (bwrap); install the bubblewrap package" };
  const probe = await probeBwrap(bwrap);
  return probe.ok ? { bwrap } : { problem: probe.problem };
}

/**
 * The driver the jail runs: reads NUL-separated lines on stdin and runs each in its own shell. Its
 * own variables are not exported, so a line sees only the environment the jail was given.
 */
const DRIVER = `
mark=$1; dir=$2; i=0
while IFS= read -r -d '' line; do
  printf '\\n%s %d\\n' "$mark" "$i"
  cd "$dir" 2>/dev/null
  timeout -k 1 ${LINE_SECONDS} bash -c "$line" </dev/null 2>&1 | head -c ${OUTPUT_CAP}
  i=$((i + 1))
done
printf '\\n%s end\\n' "$mark"
`;

let trialCount = 0;
const removals: Array<Promise<void>> = [];

/** Waits for the copies still being removed (call before removing the world). */
export async function settleJailCopies(): Promise<void> {
  await Promise.all(removals.splice(0));
}

/** Runs `lines` in one jail over a fresh copy; returns the states before and after, and each line's output. */
export async function runInJail(
  bwrap: string,
  world: FuzzWorld,
  env: Record<string, string>,
  lines: readonly string[],
): Promise<TrialStates> {
  const n = trialCount++;
  const copy = path.join(world.base, `copy-${n}`);
  const temps = ["tmp", "var-tmp", "shm"].map((name) => path.join(world.base, `jail-${n}`, name));
  // cp(1) rather than fs.cpSync: about a third of the time for a tree with a git repository in it.
  execFileSync("cp", ["-a", world.root, copy]);
  for (const dir of temps) fs.mkdirSync(dir, { recursive: true });
  try {
    const before = snapshot(copy, world);
    stampCanaryTimes(before, copy, world);
    const outputs = await runBatch(bwrap, jailArgs(world, copy, temps), env, world.project, lines);
    const after = snapshot(copy, world);
    return { before, after, outputs, strayTemp: strayEntries(world, temps) };
  } finally {
    // Removed while the next jail runs; whatever is left goes with the world's base directory.
    for (const dir of [copy, path.join(world.base, `jail-${n}`)])
      removals.push(fs.promises.rm(dir, { recursive: true, force: true }).catch(() => {}));
  }
}

function jailArgs(world: FuzzWorld, copy: string, [tmp, varTmp, shm]: string[]): string[] {
  const args = [
    "--new-session",
    "--die-with-parent",
    "--unshare-user",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-net",
    "--unshare-cgroup-try",
    "--cap-drop",
    "ALL",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--bind",
    tmp,
    "/tmp",
    "--bind",
    shm,
    "/dev/shm",
  ];
  if (fs.lstatSync("/var/tmp", { throwIfNoEntry: false })?.isDirectory())
    args.push("--bind", varTmp, "/var/tmp");
  // Last, so the copy lands at the template's path even when that is under the jail's /tmp.
  args.push("--bind", copy, world.root, "--chdir", world.project);
  return args;
}

/** Starts the jail, feeds it the lines and splits its output at the markers. */
function runBatch(
  bwrap: string,
  args: string[],
  env: Record<string, string>,
  dir: string,
  lines: readonly string[],
): Promise<string[]> {
  const mark = `@@dfuzz-${crypto.randomBytes(6).toString("hex")}@@`;
  return new Promise((resolve, reject) => {
    const child = spawn(bwrap, [...args, "--", "bash", "--norc", "-c", DRIVER, "fuzz-driver", mark, dir], {
      env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true, // its own process group, so a stuck jail is ended by group, nothing else
    });
    const chunks: Buffer[] = [];
    const errors: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.stderr.on("data", (c: Buffer) => errors.push(c));
    const limit = setTimeout(
      () => {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      },
      (lines.length * (LINE_SECONDS + 2) + 20) * 1000,
    );
    child.on("error", reject);
    child.on("close", () => {
      clearTimeout(limit);
      const text = Buffer.concat(chunks).toString("utf8");
      if (!text.includes(`${mark} end`)) {
        reject(new Error(`the jail did not finish: ${Buffer.concat(errors).toString("utf8").slice(0, 500)}`));
        return;
      }
      resolve(splitOutputs(text, mark, lines.length));
    });
    child.stdin.on("error", () => {}); // the jail may be gone before it read everything
    child.stdin.end(lines.map((l) => `${l}\0`).join(""));
  });
}

function splitOutputs(text: string, mark: string, count: number): string[] {
  const outputs = new Array<string>(count).fill("");
  const pattern = new RegExp(`\\n${mark} (\\d+|end)\\n`, "g");
  let current = -1;
  let from = 0;
  for (const m of text.matchAll(pattern)) {
    if (current >= 0) outputs[current] += text.slice(from, m.index);
    current = m[1] === "end" ? -1 : Number(m[1]);
    from = (m.index ?? 0) + m[0].length;
  }
  return outputs;
}

/** Everything the jail left in its temp directories, except the mount points of the copy. */
function strayEntries(world: FuzzWorld, temps: string[]): string[] {
  const [tmp] = temps;
  const chain = new Set<string>();
  const rel = path.relative("/tmp", world.root);
  if (!rel.startsWith("..")) {
    const parts = rel.split(path.sep);
    for (let i = 1; i <= parts.length; i++) chain.add(path.join(tmp, ...parts.slice(0, i)));
  }
  const names = ["/tmp", "/var/tmp", "/dev/shm"];
  const found: string[] = [];
  const walk = (dir: string, shown: string) => {
    for (const name of fs.readdirSync(dir)) {
      const p = path.join(dir, name);
      if (chain.has(p)) walk(p, path.join(shown, name));
      else found.push(path.join(shown, name));
    }
  };
  for (const [i, dir] of temps.entries()) walk(dir, names[i]);
  return found;
}
