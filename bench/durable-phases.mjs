/**
 * Where a durable session's time goes: one-turn sessions submitted one after another to one idle
 * worker, each timed by phase from the database's own timestamps (one machine, one clock):
 * submit (the client's enqueue) → dequeued (a worker claimed it) → first step started → last step
 * completed → workflow ended → the client has the result. Against the same session in-process.
 *
 *   npm run build && node bench/durable-phases.mjs [sessions=20]
 * Env: POLL_MS (the worker's queue poll), RESULT_POLL_MS (the client's result poll).
 */
import { spawn } from "node:child_process";
import os from "node:os";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { createDurableClient } from "../dist/dbos/index.js";
import { query } from "../dist/index.js";
import { benchOptions } from "./support/durable-worker.mjs";
import { findPostgres, startPostgres } from "./support/postgres.mjs";

const sessions = Number(process.argv[2] ?? 20);
// The client's own wait unless RESULT_POLL_MS is set (the old benchmark polled every 5 ms).
const resultPoll = process.env.RESULT_POLL_MS ? { pollMs: Number(process.env.RESULT_POLL_MS) } : {};
if ("missing" in findPostgres()) {
  console.log(JSON.stringify({ bench: "durable-phases", skipped: findPostgres().missing }));
  process.exit(0);
}
const children = [];
function child(script, env, ready) {
  const proc = spawn(process.execPath, [fileURLToPath(new URL(script, import.meta.url))], {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  children.push(proc);
  return new Promise((resolve, reject) => {
    createInterface({ input: proc.stdout }).on("line", (line) => {
      if (ready(line)) resolve({ proc, line });
    });
    proc.once("exit", (code) => reject(new Error(`${script} exited (${code}) before it was ready`)));
  });
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pgServer = await startPostgres();
try {
  const { line } = await child("./support/scripted-server.mjs", {}, (l) => l.startsWith("{"));
  const modelEnv = {
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${JSON.parse(line).port}`,
    ANTHROPIC_API_KEY: "bench",
  };
  Object.assign(process.env, modelEnv);
  const db = await pgServer.createDatabase("phases");
  await child(
    "./support/durable-worker.mjs",
    { ...modelEnv, DATABASE_URL: db, WORKER_ID: "phases-1" },
    (l) => l === "ready",
  );
  const client = await createDurableClient({ databaseUrl: db });
  const reader = new pg.Client({ connectionString: db });
  await reader.connect();
  const inProcess = async () => {
    const started = performance.now();
    for await (const m of query({ prompt: "rounds=1", options: { ...benchOptions, persistSession: false } }))
      if (m.type === "result" && m.subtype !== "success") throw new Error("in-process session failed");
    return performance.now() - started;
  };
  const rows = [];
  /** Each step kind's own durations (DBOS's started and completed stamps). */
  const stepMs = new Map();
  for (let i = -2; i < sessions; i++) {
    const inMs = await inProcess();
    const t0 = Date.now();
    const p0 = performance.now();
    const { workflowId } = await client.submit({ prompt: "rounds=1" });
    const t1 = Date.now();
    const result = await client.result(workflowId, resultPoll);
    const p3 = performance.now();
    const t3 = Date.now();
    if (result?.subtype !== "success") throw new Error("durable session failed");
    if (i < 0) continue; // warm-up
    const {
      rows: [w],
    } = await reader.query(
      `SELECT created_at::bigint AS created, started_at_epoch_ms::bigint AS started, updated_at::bigint AS updated
         FROM dbos.workflow_status WHERE workflow_uuid = $1`,
      [workflowId],
    );
    const { rows: steps } = await reader.query(
      `SELECT function_id, function_name, started_at_epoch_ms::bigint AS s, completed_at_epoch_ms::bigint AS c
         FROM dbos.operation_outputs WHERE workflow_uuid = $1 ORDER BY function_id`,
      [workflowId],
    );
    for (const step of steps) {
      const kind = step.function_name.replace(/:.*/, "");
      stepMs.set(kind, [...(stepMs.get(kind) ?? []), Number(step.c) - Number(step.s)]);
    }
    const firstStep = Number(steps[0]?.s ?? NaN);
    const lastStep = Number(steps.at(-1)?.c ?? NaN);
    rows.push({
      inProcess: inMs,
      durable: p3 - p0,
      submit: t1 - t0,
      queueWait: Number(w.started) - Number(w.created),
      toFirstStep: firstStep - Number(w.started),
      steps: lastStep - firstStep,
      afterLastStep: Number(w.updated) - lastStep,
      clientSees: t3 - Number(w.updated),
      stepCount: steps.length,
    });
    if (i === 0)
      console.error(
        steps
          .map(
            (s) =>
              `${s.function_id} ${s.function_name} +${Number(s.s) - Number(w.started)} ${Number(s.c) - Number(s.s)}ms`,
          )
          .join("\n"),
      );
  }
  const keys = Object.keys(rows[0]);
  const med = Object.fromEntries(keys.map((k) => [k, +median(rows.map((r) => r[k])).toFixed(1)]));
  for (const k of keys) console.log(`${k.padEnd(16)} ${med[k]}`);
  for (const [kind, ms] of stepMs) console.log(`step ${kind.padEnd(11)} ${median(ms)} ms (${ms.length})`);
  console.log(
    `overhead (median durable - median in-process): ${(med.durable - med.inProcess).toFixed(1)} ms`,
  );
  console.log(
    JSON.stringify({
      bench: "durable-phases",
      load: os.loadavg()[0],
      poll: process.env.POLL_MS ?? "default",
      medians: med,
    }),
  );
  await reader.end();
  await client.close();
} finally {
  for (const proc of children) proc.kill("SIGKILL");
  await pgServer.stop();
}
process.exit(0);
