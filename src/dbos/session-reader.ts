/**
 * Read-only access to durable sessions for viewers (`goat sessions --database`, `goat serve
 * --database`): the list with the step each session is at, one session's request and the SDK
 * messages it has written so far, and a live follow of the rest. It offers no call that changes a
 * session. Every call fails within `timeoutMs`, naming the database, when PostgreSQL does not answer.
 *
 * The list reuses the operator's query (`session-admin.ts`); the step of each listed session comes
 * from one query over DBOS's step checkpoints that reads only their numbers and names (DBOS's own
 * steps list loads every checkpoint's payload, a whole model answer each).
 */
import { DBOSClient } from "@dbos-inc/dbos-sdk";
import pg from "pg";
import type { SDKMessage } from "../sdk/sdk-messages.js";
import { DEFAULT_DATABASE_TIMEOUT_MS, databaseLabel, withDatabaseDeadline } from "./database-deadline.js";
import { followMessages } from "./message-log.js";
import { quoteIdent } from "./schema.js";
import {
  type DurableSessionSummary,
  type ListSessionsFilter,
  listSessions,
  summaryOf,
} from "./session-admin.js";
import type { DurableSessionRequest } from "./session-workflow.js";
import { DEFAULT_APP_NAME, SESSION_WORKFLOW_NAME } from "./worker.js";

/** Options of `createDurableSessionReader`. */
export interface DurableSessionReaderOptions {
  /** The PostgreSQL database the workers use (postgres://user@host:port/database). */
  databaseUrl: string;
  /** As the workers' `appName`. Default `goat`. */
  appName?: string;
  /** As the workers' `schema` (where the message log is). Default `goat`. */
  schema?: string;
  /** Milliseconds a call may wait for the database before it fails (`database_unreachable`). Default 10000. */
  timeoutMs?: number;
}

/** One durable session as a viewer opens it. */
export interface DurableSessionTranscript {
  /** Its row as `list` gives it (status, step, worker, version, cost, last error). */
  summary: DurableSessionSummary;
  /** The whole prompt it was submitted with (the summary keeps its first words). */
  prompt: string;
  /** The folder it runs in, as submitted. */
  cwd?: string;
  /** Its SDK messages written so far, in order (no partial stream events). */
  messages: SDKMessage[];
  /** How many messages were read: where following it live starts. */
  next: number;
}

/** The viewer's reader of durable sessions. */
export interface DurableSessionReader {
  /** Sessions, newest first, each with the step it is at (`lastStep`, `steps`). */
  list(filter?: ListSessionsFilter): Promise<DurableSessionSummary[]>;
  /** One session with its messages so far; undefined when there is no such workflow. */
  load(workflowId: string): Promise<DurableSessionTranscript | undefined>;
  /** The session's messages from position `from`, live, until it has ended (or `signal` aborts). */
  follow(workflowId: string, options: { from: number; signal?: AbortSignal }): AsyncGenerator<SDKMessage>;
  /** The database as messages name it: user@host:port/database, never the password. */
  readonly label: string;
  /** Closes its connections (bounded: a database that does not answer is left behind). */
  close(): Promise<void>;
}

const FINISHED = new Set(["SUCCESS", "ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"]);

/** Connects a reader (DBOS's client library and a pool of two connections; one more per follower). */
export async function createDurableSessionReader(
  options: DurableSessionReaderOptions,
): Promise<DurableSessionReader> {
  const url = options.databaseUrl;
  const schema = options.schema ?? "goat";
  const messagesTable = `${quoteIdent(schema)}.session_messages`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS;
  const bounded = <T>(what: string, call: () => Promise<T>) =>
    withDatabaseDeadline(url, timeoutMs, what, call);
  const pool = new pg.Pool({
    connectionString: url,
    max: 2,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
  });
  pool.on("error", () => {});
  const dbos = await DBOSClient.create({
    systemDatabaseUrl: url,
    applicationName: options.appName ?? DEFAULT_APP_NAME,
  });

  return {
    label: databaseLabel(url),
    list: (filter) =>
      bounded("list sessions", async () => {
        const sessions = await listSessions(dbos, filter);
        const steps = await lastSteps(
          pool,
          sessions.map((s) => s.workflowId),
        );
        return sessions.map((s) => ({ ...s, ...steps.get(s.workflowId) }));
      }),
    load: (workflowId) =>
      bounded("read a session", async () => {
        const status = await dbos.getWorkflow(workflowId);
        if (!status || status.workflowName !== SESSION_WORKFLOW_NAME) return undefined;
        const summary = { ...summaryOf(status), ...(await lastSteps(pool, [workflowId])).get(workflowId) };
        const request = status.input?.[0] as DurableSessionRequest | undefined;
        const { rows } = await pool.query<{ seq: number; message: string }>(
          `SELECT seq, message::text AS message FROM ${messagesTable} WHERE workflow_id = $1 ORDER BY seq`,
          [workflowId],
        );
        // Up to the first gap (a batch not committed yet): the follow reads on from there.
        const messages: SDKMessage[] = [];
        for (const row of rows) {
          if (row.seq !== messages.length) break;
          messages.push(JSON.parse(row.message) as SDKMessage);
        }
        return {
          summary,
          prompt: typeof request?.prompt === "string" ? request.prompt : "",
          ...(typeof request?.options?.cwd === "string" ? { cwd: request.options.cwd } : {}),
          messages,
          next: messages.length,
        };
      }),
    follow(workflowId, followOptions) {
      const finished = () =>
        bounded("read a session's status", async () => {
          const status = await dbos.getWorkflow(workflowId);
          return status === undefined || FINISHED.has(status.status);
        });
      return followMessages(url, schema, workflowId, finished, {
        from: followOptions.from,
        signal: followOptions.signal,
        timeoutMs,
      });
    },
    async close() {
      await withDatabaseDeadline(url, timeoutMs, "close the connections", () =>
        Promise.all([dbos.destroy(), pool.end()]),
      ).catch(() => {});
    },
  };
}

/** The last recorded step and the step count of each workflow, in one query. */
async function lastSteps(
  pool: pg.Pool,
  workflowIds: string[],
): Promise<Map<string, { lastStep: { number: number; name: string }; steps: number }>> {
  const found = new Map<string, { lastStep: { number: number; name: string }; steps: number }>();
  if (workflowIds.length === 0) return found;
  const { rows } = await pool.query<{
    workflow_uuid: string;
    function_id: number;
    function_name: string;
    steps: string;
  }>(
    `SELECT DISTINCT ON (workflow_uuid) workflow_uuid, function_id, function_name,
            count(*) OVER (PARTITION BY workflow_uuid) AS steps
     FROM dbos.operation_outputs WHERE workflow_uuid = ANY($1)
     ORDER BY workflow_uuid, function_id DESC`,
    [workflowIds],
  );
  for (const row of rows)
    found.set(row.workflow_uuid, {
      lastStep: { number: row.function_id, name: row.function_name },
      steps: Number(row.steps),
    });
  return found;
}
