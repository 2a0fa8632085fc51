/**
 * Benchmark: durable sessions (goat-agent/dbos) against in-process query(), on a throwaway PostgreSQL
 * cluster and a scripted model server (child process, instant answers), both on this machine.
 *
 * Figures:
 * - per-turn cost: one turn = a model call that asks for the `echo` tool (a side-effect tool: started
 *   marker + call step) and the call. Marginal wall time per turn ((K=20 − K=5) / 15, median of reps)
 *   of query() in this process, and of a durable session (one worker process, submitted and awaited by
 *   a client here), and their ratio.
 * - per-session overhead: a one-turn session on an idle worker, submitted and awaited, against the
 *   same session in-process (median of reps): what durability adds to each session.
 * - throughput: 120 one-turn sessions submitted at once, sessions per second in-process (all at
 *   once) and with 1, 2 and 3 worker processes (16 sessions per worker at once; this machine has
 *   `os.cpus()` cores, shared by all); and PostgreSQL bytes per session (database growth / 120).
 * - recovery: a worker killed with SIGKILL during a tool call; time until another worker has finished
 *   the session, with a 1 s heartbeat and workers declared dead after 3 s (the detection delay is
 *   most of it: the rest is the re-enqueue, the queue poll and the replay).
 * Prints a table and a final JSON line. Skips (with a JSON line saying why) without PostgreSQL.
 *
 *   npx tsc -p tsconfig.build.json && node bench/durable.mjs [reps=5]
 */
import { spawn } from "node:child_process";
import os from "node:os";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createDurableClient } from "../dist/dbos/index.js";
import { query } from "../dist/index.js";
import { benchOptions } from "./support/durable-worker.mjs";
import { findPostgres, startPostgres } from "./support/postgres.mjs";

const reps = Number(process.argv[2] ?? 5);
const found = findPostgres();
if ("missing" in found) {
  console.log(JSON.stringify({ bench: "durable", skipped: found.missing }));
  process.exit(0);
}

const children = [];
/** Starts a child and resolves with its first stdout line matching `ready`. */
function child(script, env, ready) {
  const proc = spawn(process.execPath, [fileURLToPath(new URL(script, import.meta.url))], {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  children.push(proc);
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: proc.stdout });
    lines.on("line", (line) => {
      if (ready(line)) resolve({ proc, line });
    });
    proc.once("exit", (code) => reject(new Error(`${script} exited (${code}) before it was ready`)));
  });
}
const kill9 = (proc) =>
  new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    proc.once("exit", () => resolve());
    proc.kill("SIGKILL");
  });

const progress = (text) => process.stderr.write(`durable bench: ${text}\n`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pg = await startPostgres();
const { line } = await child("./support/scripted-server.mjs", {}, (l) => l.startsWith("{"));
const baseURL = `http://127.0.0.1:${JSON.parse(line).port}`;
const modelEnv = { ANTHROPIC_BASE_URL: baseURL, ANTHROPIC_API_KEY: "bench" };
Object.assign(process.env, modelEnv); // the in-process sessions' provider reads it too
let databases = 0;

/** The database's size on disk, in bytes. */
async function databaseBytes(databaseUrl) {
  const { default: pgLib } = await import("pg");
  const c = new pgLib.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    const { rows } = await c.query("SELECT pg_database_size(current_database())::bigint AS bytes");
    return Number(rows[0].bytes);
  } finally {
    await c.end();
  }
}
let workerIds = 0;

async function workersOn(databaseUrl, count, extra = {}) {
  const started = [];
  for (let i = 0; i < count; i++) {
    started.push(
      child(
        "./support/durable-worker.mjs",
        { ...modelEnv, DATABASE_URL: databaseUrl, WORKER_ID: `bench-${++workerIds}`, ...extra },
        (l) => l === "ready",
      ),
    );
  }
  return (await Promise.all(started)).map((s) => s.proc);
}

try {
  // ---- per-turn cost --------------------------------------------------------------------------
  const inProcess = async (rounds) => {
    const started = performance.now();
    const q = query({
      prompt: `rounds=${rounds}`,
      options: { ...benchOptions, persistSession: false },
    });
    for await (const m of q) {
      if (m.type === "result" && m.subtype !== "success") throw new Error(JSON.stringify(m).slice(0, 500));
    }
    return performance.now() - started;
  };
  const turnDb = await pg.createDatabase(`bench${++databases}`);
  const [turnWorker] = await workersOn(turnDb, 1);
  const client = await createDurableClient({ databaseUrl: turnDb });
  const durable = async (rounds) => {
    const started = performance.now();
    const { workflowId } = await client.submit({ prompt: `rounds=${rounds}` });
    const result = await client.result(workflowId, { pollMs: 5 });
    if (result?.subtype !== "success") throw new Error(`durable session ended ${result?.subtype}`);
    return performance.now() - started;
  };
  await inProcess(5);
  await durable(5);
  progress("warmed up");
  const perTurn = { inProcess: [], durable: [] };
  for (let r = 0; r < reps; r++) {
    perTurn.inProcess.push(((await inProcess(20)) - (await inProcess(5))) / 15);
    perTurn.durable.push(((await durable(20)) - (await durable(5))) / 15);
    progress(
      `per-turn rep ${r + 1}: ${perTurn.inProcess.at(-1).toFixed(2)} / ${perTurn.durable.at(-1).toFixed(2)} ms`,
    );
  }
  const sessionIn = [];
  const sessionDurable = [];
  for (let r = 0; r < Math.max(reps, 5); r++) {
    sessionIn.push(await inProcess(1));
    sessionDurable.push(await durable(1));
  }
  const overheadMs = median(sessionDurable) - median(sessionIn);
  progress(`per-session overhead: ${overheadMs.toFixed(1)} ms`);
  await kill9(turnWorker);
  const turnIn = median(perTurn.inProcess);
  const turnDurable = median(perTurn.durable);

  // ---- throughput -------------------------------------------------------------------------------
  const throughput = {};
  const n = 120;
  {
    const started = performance.now();
    await Promise.all(Array.from({ length: n }, () => inProcess(1)));
    throughput.inProcess = n / ((performance.now() - started) / 1000);
    progress(`in-process: ${throughput.inProcess.toFixed(1)} sessions/s`);
  }
  let bytesPerSession = 0;
  for (const count of [1, 2, 3]) {
    const db = await pg.createDatabase(`bench${++databases}`);
    const procs = await workersOn(db, count);
    const c = await createDurableClient({ databaseUrl: db });
    const sizeBefore = await databaseBytes(db);
    const started = performance.now();
    const handles = await Promise.all(
      Array.from({ length: n }, (_, i) => c.submit({ prompt: `rounds=1 s${i}` })),
    );
    const results = await Promise.all(handles.map((h) => c.result(h.workflowId)));
    const seconds = (performance.now() - started) / 1000;
    if (results.some((r) => r?.subtype !== "success")) throw new Error("a throughput session failed");
    throughput[count] = n / seconds;
    bytesPerSession = ((await databaseBytes(db)) - sizeBefore) / n;
    progress(`${count} worker(s): ${throughput[count].toFixed(1)} sessions/s`);
    await c.close();
    for (const p of procs) await kill9(p);
  }

  // ---- recovery after a worker dies -------------------------------------------------------------
  const recoveryDb = await pg.createDatabase(`bench${++databases}`);
  const timing = { HEARTBEAT_MS: "1000", DEAD_AFTER_MS: "3000" };
  const [doomed] = await workersOn(recoveryDb, 1, timing);
  const rc = await createDurableClient({ databaseUrl: recoveryDb });
  const { workflowId } = await rc.submit({ prompt: "rounds=1 waitMs=60000" });
  for await (const m of rc.follow(workflowId)) if (m.type === "assistant") break; // the tool is running
  const [survivor] = await workersOn(recoveryDb, 1, timing);
  const killedAt = performance.now();
  await kill9(doomed);
  const recovered = await rc.result(workflowId, { pollMs: 20 });
  const recoveryMs = performance.now() - killedAt;
  if (recovered?.subtype !== "success") throw new Error("the recovered session did not succeed");
  await rc.close();
  await kill9(survivor);
  await client.close();

  const rows = [
    ["per turn, in-process query()", `${turnIn.toFixed(2)} ms`],
    ["per turn, durable (DBOS + Postgres)", `${turnDurable.toFixed(2)} ms`],
    ["ratio durable / in-process", `${(turnDurable / turnIn).toFixed(1)}x`],
    ["per session, durable overhead (idle)", `${overheadMs.toFixed(1)} ms`],
    ["sessions/s, in-process", throughput.inProcess.toFixed(1)],
    ["sessions/s, 1 worker", throughput[1].toFixed(1)],
    ["sessions/s, 2 workers", throughput[2].toFixed(1)],
    ["sessions/s, 3 workers", throughput[3].toFixed(1)],
    ["PostgreSQL bytes per session", `${Math.round(bytesPerSession)}`],
    ["recovery after SIGKILL (dead after 3 s)", `${(recoveryMs / 1000).toFixed(2)} s`],
  ];
  for (const [k, v] of rows) console.log(`${k.padEnd(42)} ${v}`);
  console.log(
    JSON.stringify({
      bench: "durable",
      cores: os.cpus().length,
      perTurnMs: { inProcess: +turnIn.toFixed(3), durable: +turnDurable.toFixed(3) },
      perTurnRatio: +(turnDurable / turnIn).toFixed(2),
      sessionsPerSecond: Object.fromEntries(Object.entries(throughput).map(([k, v]) => [k, +v.toFixed(2)])),
      perSessionOverheadMs: +overheadMs.toFixed(1),
      bytesPerSession: Math.round(bytesPerSession),
      recoveryMs: Math.round(recoveryMs),
      deadAfterMs: 3000,
    }),
  );
} finally {
  for (const proc of children) await kill9(proc);
  await pg.stop();
}
process.exit(0);
