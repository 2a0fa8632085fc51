/**
 * The client side of durable sessions, for any process that reaches the database (no worker, no DBOS
 * runtime of its own): submit a session to the queue, follow its SDK messages live, send it steering
 * and follow-up messages, interrupt or cancel it, and read its result; and the operator's calls:
 * list and show sessions, resume or fork one at a step, count and move them between application
 * versions, prune old ones. Every call fails within `timeoutMs` when the database does not answer.
 */

import { randomUUID } from "node:crypto";
import { DBOSClient } from "@dbos-inc/dbos-sdk";
import pg from "pg";
import { GoatError, InvalidOptionError } from "../errors.js";
import type { SDKMessage, SDKResultMessage } from "../sdk/sdk-messages.js";
import { DEFAULT_DATABASE_TIMEOUT_MS, withDatabaseDeadline } from "./database-deadline.js";
import { followMessages } from "./message-log.js";
import { readStoredOutput } from "./payload-limit.js";
import { type PruneReport, pruneSessions } from "./retention.js";
import {
  countByVersion,
  type DurableSessionSummary,
  type ListSessionsFilter,
  listSessions,
  moveSessions,
  showSession,
} from "./session-admin.js";
import { createSessionEndWatcher } from "./session-signals.js";
import {
  type DurableSessionOutcome,
  type DurableSessionRequest,
  FOLLOW_UP_TOPIC,
  STEER_TOPIC,
} from "./session-workflow.js";
import { DEFAULT_APP_NAME, DEFAULT_QUEUE_NAME, SESSION_WORKFLOW_NAME } from "./worker.js";

/** Options of `createDurableClient`. */
export interface DurableClientOptions {
  databaseUrl: string;
  /** As the workers' `appName`. Default `goat`. */
  appName?: string;
  /** As the workers' `queueName`. Default `goat-sessions`. */
  queueName?: string;
  /** As the workers' `schema`. Default `goat`. */
  schema?: string;
  /**
   * Milliseconds a call may wait for the database before it fails with `DatabaseUnreachableError`
   * (code `database_unreachable`), naming the database. Default 10000.
   */
  timeoutMs?: number;
}

/** How a session is queued (besides its request). */
export interface DurableSubmitOptions {
  /** The workflow id (default: a new uuid). Submitting again with the same id returns the same session. */
  workflowId?: string;
  /**
   * A caller's id for de-duplication: while a session with this id is queued or running, another
   * submit with it fails (`duplicate_session`) instead of queuing a second session.
   */
  deduplicationId?: string;
  /** Queue priority: lower runs first (0, the default, is the highest). */
  priority?: number;
  /** The session is cancelled when it runs longer than this, counted from when a worker takes it. */
  deadlineMs?: number;
  /** Run only on workers of this application version (default: the newest version started). */
  applicationVersion?: string;
}

/** A submitted session: its workflow id (what every other call takes) and its session id. */
export interface DurableSessionHandle {
  workflowId: string;
  sessionId: string;
}

/** Where a durable session stands (DBOS's workflow status). */
export type DurableSessionStatus =
  | "ENQUEUED"
  | "PENDING"
  | "SUCCESS"
  | "ERROR"
  | "CANCELLED"
  | "MAX_RECOVERY_ATTEMPTS_EXCEEDED"
  | "DELAYED"
  | "unknown";

/** The client. */
export interface DurableClient {
  /** Queues a session; returns at once. `workflowId` makes submitting idempotent (default: a new uuid). */
  submit(request: DurableSessionRequest, options?: DurableSubmitOptions): Promise<DurableSessionHandle>;
  /** The session's SDK messages from the first (or after `from`), live, until it has ended. */
  follow(workflowId: string, options?: { from?: number; signal?: AbortSignal }): AsyncGenerator<SDKMessage>;
  /** Delivers a user message at the next turn boundary of the running session. */
  steer(workflowId: string, text: string): Promise<void>;
  /** Queues a user message that starts another round when the current one ends. */
  sendFollowUp(workflowId: string, text: string): Promise<void>;
  /**
   * Stops the session: DBOS cancels the workflow and its worker interrupts the running model call and
   * tools (each tool call still gets its result). A cancelled session stays cancelled; continue the
   * conversation by submitting with `resume: sessionId`.
   */
  cancel(workflowId: string): Promise<void>;
  status(workflowId: string): Promise<DurableSessionStatus>;
  /**
   * Waits for the session to end and returns its last result message (undefined when it had none).
   * Throws when the session was cancelled or failed. Hears the end from the database at once, and
   * looks again every `pollMs` besides (default 250) in case that signal is lost.
   */
  result(workflowId: string, options?: { pollMs?: number }): Promise<SDKResultMessage | undefined>;
  /** Sessions, newest first: status, step, worker, version, age, cost, last error. */
  list(filter?: ListSessionsFilter): Promise<DurableSessionSummary[]>;
  /** One session with the step it is at (undefined: no such workflow). */
  show(workflowId: string): Promise<DurableSessionSummary | undefined>;
  /**
   * Continues a cancelled or failed session at the step where it stopped, as a new workflow (returned)
   * that keeps every step recorded before: a tool call that was cut is answered "interrupted", never
   * run twice. `applicationVersion` runs it on workers of another version.
   */
  resume(workflowId: string, options?: { applicationVersion?: string }): Promise<DurableSessionHandle>;
  /**
   * A new workflow with the session's steps before `step` (numbered as `show` and the steps list
   * give them); from `step` on, it runs again. Only for a session that wrote its own transcript (not
   * one submitted with `resume` or `sessionId`): the fork writes a transcript of its own.
   */
  fork(
    workflowId: string,
    step: number,
    options?: { applicationVersion?: string },
  ): Promise<DurableSessionHandle>;
  /** Sessions per application version and status. */
  versions(): Promise<Array<{ applicationVersion: string; status: string; count: number }>>;
  /** Moves unfinished sessions of version `from` (all, or `workflowIds`) to `to`; returns those moved. */
  moveVersion(from: string, to: string, workflowIds?: readonly string[]): Promise<string[]>;
  /** Deletes finished sessions last updated more than `olderThanMs` ago, with their transcripts. */
  prune(olderThanMs: number): Promise<PruneReport>;
  /** The whole text of a tool output cut for the model (its id is in the cut result's last line). */
  storedOutput(outputId: string): Promise<string | undefined>;
  close(): Promise<void>;
}

const FINISHED = new Set(["SUCCESS", "ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"]);

/** Connects a client (DBOS's client library, a small pool, and one connection per follower). */
export async function createDurableClient(options: DurableClientOptions): Promise<DurableClient> {
  const appName = options.appName ?? DEFAULT_APP_NAME;
  const queueName = options.queueName ?? DEFAULT_QUEUE_NAME;
  const schema = options.schema ?? "goat";
  const timeoutMs = options.timeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS;
  const url = options.databaseUrl;
  const bounded = <T>(what: string, call: () => Promise<T>) =>
    withDatabaseDeadline(url, timeoutMs, what, call);
  const pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: timeoutMs });
  pool.on("error", () => {});
  const dbos = await DBOSClient.create({ systemDatabaseUrl: url, applicationName: appName });
  const ends = createSessionEndWatcher(url, timeoutMs);
  const status = (workflowId: string): Promise<DurableSessionStatus> =>
    bounded(
      "read a session's status",
      async () =>
        ((await dbos.retrieveWorkflow(workflowId).getStatus())?.status as DurableSessionStatus | undefined) ??
        "unknown",
    );
  const handleOf = async (workflowId: string): Promise<DurableSessionHandle> => {
    const shown = await showSession(dbos, workflowId);
    return { workflowId, sessionId: shown?.sessionId ?? workflowId };
  };

  return {
    submit: (request, submitOptions = {}) =>
      bounded("queue a session", () => submit(dbos, { appName, queueName }, request, submitOptions)),
    follow(workflowId, followOptions) {
      return followMessages(url, schema, workflowId, async () => FINISHED.has(await status(workflowId)), {
        from: followOptions?.from,
        signal: followOptions?.signal,
        timeoutMs,
      });
    },
    steer: (workflowId, text) => bounded("send a message", () => dbos.send(workflowId, text, STEER_TOPIC)),
    sendFollowUp: (workflowId, text) =>
      bounded("send a message", () => dbos.send(workflowId, text, FOLLOW_UP_TOPIC)),
    cancel: (workflowId) => bounded("cancel a session", () => dbos.cancelWorkflow(workflowId)),
    status,
    async result(workflowId, resultOptions) {
      // Read through `status`, which is bounded: DBOS's own wait would hang if the database went away.
      const pollMs = resultOptions?.pollMs ?? 250;
      const end = ends.watch(workflowId);
      try {
        for (;;) {
          const now = await status(workflowId);
          if (FINISHED.has(now)) break;
          if (now === "unknown")
            throw new InvalidOptionError("workflowId", `No durable session ${workflowId}.`);
          await end.wait(pollMs);
        }
      } finally {
        end.cancel();
      }
      const outcome = (await bounded("read a session's result", () =>
        dbos.retrieveWorkflow<DurableSessionOutcome>(workflowId).getResult(),
      )) as DurableSessionOutcome | null;
      return outcome?.result;
    },
    list: (filter) => bounded("list sessions", () => listSessions(dbos, filter)),
    show: (workflowId) => bounded("read a session", () => showSession(dbos, workflowId)),
    resume: (workflowId, resumeOptions) =>
      bounded("resume a session", async () => {
        const steps = (await dbos.listWorkflowSteps(workflowId)) ?? [];
        const next = steps.reduce((max, s) => Math.max(max, s.functionID + 1), 0);
        const forked = await forkAt(dbos, workflowId, next, queueName, resumeOptions?.applicationVersion);
        return handleOf(forked);
      }),
    fork: (workflowId, step, forkOptions) =>
      bounded("fork a session", async () => {
        const forked = await forkAt(dbos, workflowId, step, queueName, forkOptions?.applicationVersion);
        return handleOf(forked);
      }),
    versions: () => bounded("count sessions per version", () => countByVersion(pool)),
    moveVersion: (from, to, workflowIds) =>
      bounded("move sessions", () => moveSessions(pool, from, to, workflowIds)),
    prune: (olderThanMs) =>
      bounded("prune sessions", () => pruneSessions(pool, dbos, schema, olderThanMs, SESSION_WORKFLOW_NAME)),
    storedOutput: (outputId) => bounded("read a tool output", () => readStoredOutput(pool, schema, outputId)),
    async close() {
      // Closing waits on connections DBOS may still be retrying: bounded too, then left behind.
      await withDatabaseDeadline(url, timeoutMs, "close the connections", () =>
        Promise.all([dbos.destroy(), pool.end(), ends.close()]),
      ).catch(() => {});
    },
  };
}

async function submit(
  dbos: DBOSClient,
  where: { appName: string; queueName: string },
  request: DurableSessionRequest,
  options: DurableSubmitOptions,
): Promise<DurableSessionHandle> {
  if (typeof request.prompt !== "string" || request.prompt === "") {
    throw new InvalidOptionError("prompt", "A durable session needs a prompt (a non-empty string).");
  }
  const workflowId = options.workflowId ?? randomUUID();
  try {
    await dbos.enqueue(
      {
        queueName: where.queueName,
        workflowName: SESSION_WORKFLOW_NAME,
        workflowID: workflowId,
        applicationName: where.appName,
        ...(options.deduplicationId !== undefined ? { deduplicationID: options.deduplicationId } : {}),
        ...(options.priority !== undefined ? { priority: options.priority } : {}),
        ...(options.deadlineMs !== undefined ? { workflowTimeoutMS: options.deadlineMs } : {}),
        ...(options.applicationVersion !== undefined ? { appVersion: options.applicationVersion } : {}),
      },
      request,
    );
  } catch (error) {
    if ((error as { name?: string }).name === "DBOSQueueDuplicatedError")
      throw new GoatError(
        `A session with de-duplication id ${JSON.stringify(options.deduplicationId)} is already queued or running.`,
        { code: "duplicate_session", cause: error },
      );
    throw error;
  }
  return {
    workflowId,
    sessionId: request.resume && !request.forkSession ? request.resume : (request.sessionId ?? workflowId),
  };
}

/** DBOS's fork, refused for sessions whose transcript the fork would write into. */
async function forkAt(
  dbos: DBOSClient,
  workflowId: string,
  step: number,
  queueName: string,
  applicationVersion: string | undefined,
): Promise<string> {
  const original = await dbos.getWorkflow(workflowId);
  if (!original) throw new InvalidOptionError("workflowId", `No durable session ${workflowId}.`);
  const request = original.input?.[0] as DurableSessionRequest | undefined;
  if (request?.sessionId !== undefined || (request?.resume !== undefined && !request.forkSession)) {
    throw new InvalidOptionError(
      "workflowId",
      `Session ${workflowId} continues a named transcript; a fork would write into it. Submit with resume and forkSession instead.`,
    );
  }
  return dbos.forkWorkflow(workflowId, step, {
    newWorkflowID: randomUUID(),
    queueName,
    ...(applicationVersion ? { applicationVersion } : {}),
  });
}
