/**
 * What an operator sees and moves: durable sessions as rows (status, step, worker, version, age,
 * cost, last error), their count per application version, and the explicit move of sessions from
 * one version to another (after checking that the new build replays them the same way, or to let a
 * build refuse them visibly). Reads DBOS's `workflow_status` and `operation_outputs` through DBOS's
 * client where it offers the query, and plain SQL where it does not (moving a version).
 */
import type { DBOSClient, WorkflowStatus } from "@dbos-inc/dbos-sdk";
import type pg from "pg";
import type { DurableSessionOutcome, DurableSessionRequest } from "./session-workflow.js";

/** One durable session as an operator sees it. */
export interface DurableSessionSummary {
  /** The DBOS workflow id (what every client call takes). */
  workflowId: string;
  /** The transcript's session id. */
  sessionId: string;
  /** DBOS's workflow status (ENQUEUED, PENDING, SUCCESS, ERROR, CANCELLED …). */
  status: string;
  /** The first words of the prompt. */
  prompt: string;
  /** The application version that runs it (`app-version.ts`). */
  applicationVersion?: string;
  /** The worker (DBOS executor) that runs or ran it. */
  executorId?: string;
  /** The queue it was submitted to. */
  queueName?: string;
  /** When it was submitted (epoch milliseconds). */
  createdAt: number;
  /** When its status last changed (epoch milliseconds). */
  updatedAt?: number;
  /** Cost of the last run, when it finished with a result. */
  costUsd?: number;
  /** The workflow's error (an engine error, a cancel, a deadline), or the result's errors. */
  error?: string;
  /** Its queue priority (lower runs first). */
  priority: number;
  /** When it is cancelled if still running (epoch milliseconds). */
  deadlineEpochMs?: number;
  /** The step the session is at: the last one recorded (only in `showSession`). */
  lastStep?: { number: number; name: string };
  /** How many steps are recorded (only in `showSession`). */
  steps?: number;
  /** Set when this session was forked from another workflow. */
  forkedFrom?: string;
}

/** Filters of `listSessions`. */
export interface ListSessionsFilter {
  /** Only sessions of this DBOS status (or these). */
  status?: string | string[];
  /** Only sessions of this application version (or these). */
  applicationVersion?: string | string[];
  /** At most this many, newest first (default 100). */
  limit?: number;
}

const WORKFLOW_NAME = "goatSession";

/** Durable sessions, newest first. */
export async function listSessions(
  dbos: DBOSClient,
  filter: ListSessionsFilter = {},
): Promise<DurableSessionSummary[]> {
  const rows = await dbos.listWorkflows({
    workflowName: WORKFLOW_NAME,
    ...(filter.status ? { status: filter.status as never } : {}),
    ...(filter.applicationVersion ? { applicationVersion: filter.applicationVersion } : {}),
    limit: filter.limit ?? 100,
    sortDesc: true,
    loadInput: true,
    loadOutput: true,
  });
  return rows.map(summaryOf);
}

/** One session in full: its row plus the step it is at. Undefined when there is no such workflow. */
export async function showSession(
  dbos: DBOSClient,
  workflowId: string,
): Promise<DurableSessionSummary | undefined> {
  const status = await dbos.getWorkflow(workflowId);
  if (!status) return undefined;
  const steps = (await dbos.listWorkflowSteps(workflowId)) ?? [];
  const last = steps.at(-1);
  return {
    ...summaryOf(status),
    steps: steps.length,
    ...(last ? { lastStep: { number: last.functionID, name: last.name } } : {}),
  };
}

/** How many sessions each application version holds, by status. */
export async function countByVersion(
  pool: pg.Pool,
): Promise<Array<{ applicationVersion: string; status: string; count: number }>> {
  const { rows } = await pool.query<{ application_version: string | null; status: string; n: string }>(
    `SELECT application_version, status, count(*) AS n FROM dbos.workflow_status
     WHERE name = $1 GROUP BY application_version, status ORDER BY application_version, status`,
    [WORKFLOW_NAME],
  );
  return rows.map((r) => ({
    applicationVersion: r.application_version ?? "(any)",
    status: r.status,
    count: Number(r.n),
  }));
}

/**
 * Moves the unfinished sessions of version `from` (or just `workflowIds` among them) to version `to`:
 * queued ones are then dequeued by workers of `to`, and pending ones whose worker is gone are
 * recovered by them (a pending session whose worker still lives stays with it). Returns the ids moved.
 */
export async function moveSessions(
  pool: pg.Pool,
  from: string,
  to: string,
  workflowIds?: readonly string[],
): Promise<string[]> {
  const { rows } = await pool.query<{ workflow_uuid: string }>(
    `UPDATE dbos.workflow_status SET application_version = $2
     WHERE name = $3 AND application_version = $1 AND status IN ('ENQUEUED', 'PENDING')
       AND ($4::text[] IS NULL OR workflow_uuid = ANY($4))
     RETURNING workflow_uuid`,
    [from, to, WORKFLOW_NAME, workflowIds ? [...workflowIds] : null],
  );
  return rows.map((r) => r.workflow_uuid);
}

/** The operator's row of one workflow (its input and output loaded). */
export function summaryOf(status: WorkflowStatus): DurableSessionSummary {
  const request = (status.input?.[0] ?? undefined) as DurableSessionRequest | undefined;
  const outcome = (status.output ?? undefined) as DurableSessionOutcome | undefined;
  const result = outcome?.result;
  const resultErrors =
    result && "errors" in result && result.errors.length > 0 ? result.errors.join("; ") : undefined;
  const sessionId =
    outcome?.sessionId ??
    (request?.resume && !request.forkSession ? request.resume : (request?.sessionId ?? status.workflowID));
  return {
    workflowId: status.workflowID,
    sessionId,
    status: status.status,
    prompt: (request?.prompt ?? "").slice(0, 80),
    ...(status.applicationVersion ? { applicationVersion: status.applicationVersion } : {}),
    ...(status.executorId ? { executorId: status.executorId } : {}),
    ...(status.queueName ? { queueName: status.queueName } : {}),
    createdAt: status.createdAt,
    ...(status.updatedAt !== undefined ? { updatedAt: status.updatedAt } : {}),
    ...(result ? { costUsd: result.total_cost_usd } : {}),
    ...(status.error !== undefined && status.error !== null
      ? { error: errorText(status.error) }
      : resultErrors
        ? { error: resultErrors }
        : {}),
    priority: status.priority,
    ...(status.deadlineEpochMS ? { deadlineEpochMs: status.deadlineEpochMS } : {}),
    ...(status.forkedFrom ? { forkedFrom: status.forkedFrom } : {}),
  };
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "object" && error !== null && "message" in error) return String(error.message);
  return String(error);
}
