/**
 * A durable worker: a process that runs durable sessions from the shared queue.
 *
 * Start one or many (on one machine or several) against the same PostgreSQL database. Each registers
 * the session workflow with DBOS, joins the queue (a limit per worker and, optionally, across all
 * workers) and launches DBOS, which first recovers the sessions this executor id left pending.
 *
 * Takeover of a dead worker's sessions: DBOS by itself recovers only the sessions of its own executor
 * id, at launch. So each worker also writes a heartbeat row every `heartbeatMs`; every worker sweeps
 * for rows older than `deadAfterMs`, deletes them (one sweeper wins each row) and hands that
 * executor's pending sessions back to the queue through DBOS's recovery, where any worker picks them
 * up and replays them from their last step. Sessions left by an executor with no heartbeat row at all
 * (its row was already swept) are handed back the same way. A worker that was only paused, not dead,
 * cannot corrupt a session it lost: DBOS fences every checkpoint on the current owner.
 *
 * Cancellation: `cancel` marks the workflow cancelled in DBOS; each worker checks its running sessions
 * every `cancelPollMs` and interrupts those cancelled, so the model stream and tools stop at once and
 * every tool call still gets its result in the transcript.
 */

import { hostname } from "node:os";
import { DBOS } from "@dbos-inc/dbos-sdk";
import pg from "pg";
import { GoatError } from "../errors.js";
import type { QueryOptions } from "../sdk/options.js";
import { prestartSpawnHelper } from "../tools/spawn-helper.js";
import { deriveApplicationVersion } from "./app-version.js";
import {
  checkDbosRecovery,
  pollQueueNow,
  recoverExecutorsWorkflows,
  serializeQueuePolls,
} from "./dbos-recovery.js";
import { createPostgresSessionStore } from "./postgres-store.js";
import { migrateGoatSchema, quoteIdent } from "./schema.js";
import {
  installSessionSignals,
  listenForSignals,
  QUEUED_CHANNEL,
  type SignalListener,
} from "./session-signals.js";
import {
  type DurableSessionOutcome,
  type DurableSessionRequest,
  runSessionWorkflow,
  type SessionWorkflowContext,
  sessionToolSet,
} from "./session-workflow.js";
import { startToolWatchdog } from "./tool-watchdog.js";

/** The DBOS application name durable sessions use by default. */
export const DEFAULT_APP_NAME = "goat";
/** The DBOS queue durable sessions wait on by default. */
export const DEFAULT_QUEUE_NAME = "goat-sessions";
export const SESSION_WORKFLOW_NAME = "goatSession";
/** How often a worker polls the queue by default, in milliseconds. */
const DEFAULT_POLLING_INTERVAL_MS = 100;
/** How often a Task call looks whether its subagent's workflow has ended (DBOS's default: 1 s). */
const CHILD_POLL_MS = 200;

/** Options of `startDurableWorker`. */
export interface DurableWorkerOptions {
  /** PostgreSQL URL; DBOS keeps its tables in schema `dbos`, Goat in `schema`. */
  databaseUrl: string;
  /** DBOS application name (workers and clients of one deployment share it). Default `goat`. */
  appName?: string;
  /** Queue name. Default `goat-sessions`. */
  queueName?: string;
  /** Sessions this worker runs at once. Default 8. */
  workerConcurrency?: number;
  /** Sessions all workers together run at once (unset: no global limit). */
  globalConcurrency?: number;
  /** How often the queue is polled, in milliseconds. Default 100 (DBOS's own default, 1000, made every session wait about half a second). */
  pollingIntervalMs?: number;
  /** At most `limit` sessions started per `periodSeconds`, across all workers. */
  rateLimit?: { limit: number; periodSeconds: number };
  /**
   * This worker's DBOS executor id. Give a stable one per worker slot (`GOAT_WORKER_ID`) and a
   * restarted worker takes its own sessions back at once; the default (host and pid) is new each run,
   * and the sessions of a worker that never comes back are adopted after `deadAfterMs`.
   */
  executorId?: string;
  /** Heartbeat period in milliseconds. Default 1000. */
  heartbeatMs?: number;
  /** A worker silent this long is dead and its sessions are adopted. Default 10000. */
  deadAfterMs?: number;
  /** How often running sessions are checked for cancellation, in milliseconds. Default 500. */
  cancelPollMs?: number;
  /** Schema of Goat's tables. Default `goat`. */
  schema?: string;
  /**
   * The sessions' base `query()` options: tools, providers, hooks, `canUseTool` … (or a function of the
   * request). A submitted request's plain options override them. Hooks and `canUseTool` run again
   * when a session is replayed, so they must decide the same way given the same input.
   */
  options?: QueryOptions | ((request: DurableSessionRequest) => QueryOptions);
  /** Tools that may run again after a crash mid-call (read-only tools always may). */
  idempotentTools?: string[];
  /**
   * Bytes a tool call's result may take in its step (default about 1 MB): a longer output is stored
   * once in PostgreSQL and the model gets its start and end, as from Bash.
   */
  payloadLimitBytes?: number;
  /**
   * The application version this worker runs: it takes new sessions only when it is the newest
   * version started on the database, and recovers only sessions of its own version. Default: derived
   * from Goat's version and the sessions' tool set (`app-version.ts`), so a build that would replay a
   * session differently never picks it up. Move sessions between versions with the client's
   * `moveSessions`.
   */
  applicationVersion?: string;
  /** DBOS's log level (default `warn`). */
  logLevel?: string;
}

/** A running worker. */
export interface DurableWorker {
  readonly executorId: string;
  /** The DBOS application version it runs (given or derived). */
  readonly applicationVersion: string;
  /** Sessions running in this process now. */
  running(): number;
  /** Stops taking sessions and shuts DBOS down; running sessions are left for recovery. */
  stop(): Promise<void>;
}

let started = false;

/** Starts this process's worker (one per process: DBOS is a process-wide runtime). */
export async function startDurableWorker(options: DurableWorkerOptions): Promise<DurableWorker> {
  if (started)
    throw new GoatError("A durable worker is already running in this process.", { code: "worker_running" });
  checkDbosRecovery();
  started = true;
  // While the worker is small: its sessions' tool processes then never fork the grown worker.
  prestartSpawnHelper();
  const executorId = options.executorId ?? `${hostname()}-${process.pid}`;
  const schemaName = options.schema ?? "goat";
  const schema = quoteIdent(schemaName);
  const queueName = options.queueName ?? DEFAULT_QUEUE_NAME;
  const heartbeatMs = options.heartbeatMs ?? 1000;
  const deadAfterMs = options.deadAfterMs ?? 10_000;
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
  pool.on("error", () => {});
  const store = createPostgresSessionStore({ pool, schema: schemaName });
  const running = new Map<string, () => void>();
  const timers: NodeJS.Timeout[] = [];
  let applicationVersion = "";
  let stopWatchdog = () => {};
  let queued: SignalListener | undefined;

  try {
    await migrateGoatSchema(pool, schemaName);
    // The heartbeat exists before DBOS can dequeue anything, so no session of ours ever looks orphaned.
    await pool.query(
      `INSERT INTO ${schema}.workers (executor_id, started_at, last_seen) VALUES ($1, ${NOW_MS}, ${NOW_MS})
       ON CONFLICT (executor_id) DO UPDATE SET started_at = excluded.started_at, last_seen = excluded.last_seen`,
      [executorId],
    );

    const base = options.options ?? {};
    applicationVersion = options.applicationVersion ?? versionOf(base, options.idempotentTools);
    const context: SessionWorkflowContext = {
      store,
      pool,
      schema: schemaName,
      baseOptions: typeof base === "function" ? base : () => base,
      idempotentTools: options.idempotentTools,
      payloadLimitBytes: options.payloadLimitBytes,
      track(workflowId, stop) {
        running.set(workflowId, stop);
        return () => running.delete(workflowId);
      },
    };
    const sessionWorkflow = DBOS.registerWorkflow(
      async (request: DurableSessionRequest): Promise<DurableSessionOutcome> =>
        runSessionWorkflow(context, request),
      { name: SESSION_WORKFLOW_NAME },
    );
    // A subagent is a child session: started from within its parent's workflow (so DBOS records the
    // start as one of the parent's steps), off the queue, and stopped with the parent's call. The start
    // and the wait for the result both take their step numbers now, before any await, so Task calls
    // running together keep them in the order they began (`DBOS.getResult` polls until the child ends).
    context.runChild = async (childId, request, signal) => {
      const started = DBOS.startWorkflow(sessionWorkflow, { workflowID: childId })(request);
      const finished = DBOS.getResult<DurableSessionOutcome>(childId, { pollingIntervalMs: CHILD_POLL_MS });
      const stop = () => running.get(childId)?.();
      signal.addEventListener("abort", stop, { once: true });
      // Were the start to fail (the engine's error, which ends the parent), nothing may await this.
      finished.catch(() => {});
      try {
        await started;
        const outcome = await finished;
        if (outcome === null) throw new Error(`The subagent's workflow ${childId} has no result.`);
        return outcome;
      } finally {
        signal.removeEventListener("abort", stop);
      }
    };
    await migrateDbosOnce(pool, options.databaseUrl);
    await installSessionSignals(pool, schemaName);
    serializeQueuePolls();
    DBOS.setConfig({
      name: options.appName ?? DEFAULT_APP_NAME,
      systemDatabaseUrl: options.databaseUrl,
      executorID: executorId,
      applicationVersion,
      logLevel: options.logLevel ?? "warn",
      runMigrations: false,
    });
    // Before any session runs: from now on a tool's process group dies with this worker.
    stopWatchdog = startToolWatchdog();
    await DBOS.launch();
    const queue = await DBOS.registerQueue(queueName, {
      workerConcurrency: options.workerConcurrency ?? 8,
      ...(options.globalConcurrency !== undefined ? { globalConcurrency: options.globalConcurrency } : {}),
      minPollingIntervalMs: options.pollingIntervalMs ?? DEFAULT_POLLING_INTERVAL_MS,
      ...(options.rateLimit
        ? {
            rateLimit: {
              limitPerPeriod: options.rateLimit.limit,
              periodSec: options.rateLimit.periodSeconds,
            },
          }
        : {}),
      onConflict: "always_update",
    });
    queued = wakeOnQueued(options.databaseUrl, queue);
    await queued.ready;
  } catch (error) {
    started = false;
    stopWatchdog();
    await queued?.close();
    await pool.end().catch(() => {});
    throw error;
  }

  const every = (ms: number, task: () => Promise<void>) => {
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      task()
        .catch(() => {
          // A failed beat or sweep is retried on the next tick; the database may be restarting.
        })
        .finally(() => {
          busy = false;
        });
    }, ms);
    timer.unref();
    timers.push(timer);
  };

  every(heartbeatMs, async () => {
    await pool.query(
      `INSERT INTO ${schema}.workers (executor_id, started_at, last_seen) VALUES ($1, ${NOW_MS}, ${NOW_MS})
       ON CONFLICT (executor_id) DO UPDATE SET last_seen = excluded.last_seen`,
      [executorId],
    );
    await adoptDeadWorkers();
  });

  async function adoptDeadWorkers(): Promise<void> {
    const { rows } = await pool.query<{ executor_id: string }>(
      `DELETE FROM ${schema}.workers WHERE last_seen < ${NOW_MS} - $1 AND executor_id <> $2 RETURNING executor_id`,
      [deadAfterMs, executorId],
    );
    const dead = new Set(rows.map((r) => r.executor_id));
    // Pending sessions whose executor has no heartbeat at all: swept earlier, but not yet handed back.
    const pending = await DBOS.listWorkflows({
      status: "PENDING",
      queueName,
      loadInput: false,
      loadOutput: false,
    });
    const orphanCandidates = [
      ...new Set(pending.map((w) => w.executorId).filter((id): id is string => !!id)),
    ];
    if (orphanCandidates.length > 0) {
      const alive = await pool.query<{ executor_id: string }>(
        `SELECT executor_id FROM ${schema}.workers WHERE executor_id = ANY($1)`,
        [orphanCandidates],
      );
      const live = new Set(alive.rows.map((r) => r.executor_id));
      for (const id of orphanCandidates) if (!live.has(id) && id !== executorId) dead.add(id);
    }
    if (dead.size === 0) return;
    // DBOS's own recovery, for another executor's id: its pending sessions go back to their queue.
    await recoverExecutorsWorkflows([...dead]);
  }

  every(options.cancelPollMs ?? 500, async () => {
    if (running.size === 0) return;
    const cancelled = await DBOS.listWorkflows({
      workflowIDs: [...running.keys()],
      status: "CANCELLED",
      loadInput: false,
      loadOutput: false,
    });
    for (const workflow of cancelled) running.get(workflow.workflowID)?.();
  });

  return {
    executorId,
    applicationVersion,
    running: () => running.size,
    async stop() {
      for (const timer of timers) clearInterval(timer);
      await queued?.close();
      await DBOS.shutdown({ deregister: true });
      await pool.query(`DELETE FROM ${schema}.workers WHERE executor_id = $1`, [executorId]).catch(() => {});
      await pool.end().catch(() => {});
      stopWatchdog();
      started = false;
    },
  };
}

/**
 * Polls the queue as soon as a session is queued on it (and after a lost listening connection is
 * back), one poll at a time: signals that arrive during a poll make one more poll, not one each.
 */
function wakeOnQueued(databaseUrl: string, queue: { name: string }): SignalListener {
  let polling = false;
  let again = false;
  const poll = () => {
    if (polling) {
      again = true;
      return;
    }
    polling = true;
    void pollQueueNow(queue)
      .catch(() => {
        // The runner's own poll is still there; it retries.
      })
      .finally(() => {
        polling = false;
        if (again) {
          again = false;
          poll();
        }
      });
  };
  return listenForSignals(
    databaseUrl,
    [QUEUED_CHANNEL],
    (_channel, queueName) => {
      if (queueName === queue.name) poll();
    },
    { onReconnect: poll },
  );
}

/** The derived application version of a worker with these base options (a function: as for a bare prompt). */
function versionOf(
  base: QueryOptions | ((request: DurableSessionRequest) => QueryOptions),
  idempotentTools: readonly string[] | undefined,
): string {
  const options = typeof base === "function" ? base({ prompt: "" }) : base;
  const { tools, wantsTask } = sessionToolSet(options);
  return deriveApplicationVersion({ tools, subagents: wantsTask, idempotentTools });
}

/**
 * DBOS's own schema, created or upgraded by one worker at a time: workers launched together on a new
 * database would otherwise run the same DDL at once and fail ("tuple concurrently updated").
 */
async function migrateDbosOnce(pool: pg.Pool, databaseUrl: string): Promise<void> {
  const client = await pool.connect();
  try {
    // Polled, not waited on: a session blocked in pg_advisory_lock holds a snapshot, and DBOS's
    // migrations (CREATE INDEX CONCURRENTLY) wait for every such snapshot — a deadlock.
    for (;;) {
      const { rows } = await client.query<{ ok: boolean }>(
        "SELECT pg_try_advisory_lock(hashtext('goat-dbos-migrate')) AS ok",
      );
      if (rows[0]?.ok) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    try {
      await DBOS.migrate(databaseUrl);
    } finally {
      await client.query("SELECT pg_advisory_unlock(hashtext('goat-dbos-migrate'))");
    }
  } finally {
    client.release();
  }
}

/** The database's clock in milliseconds: heartbeats are compared on one clock, not each worker's. */
const NOW_MS = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint";
