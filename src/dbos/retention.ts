/**
 * Retention: finished durable sessions older than an age are deleted with everything Goat and DBOS
 * keep of them — DBOS's workflow row and step checkpoints, the SDK message log, full tool outputs
 * kept apart, and the transcript of the session the workflow created. Running and queued sessions are
 * never touched. A transcript goes with the workflow it is named after (the default session id), once
 * no workflow of that id is left.
 */
import type { DBOSClient } from "@dbos-inc/dbos-sdk";
import type pg from "pg";
import { quoteIdent } from "./schema.js";

const FINISHED = ["SUCCESS", "ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"];

/** What `pruneSessions` removed. */
export interface PruneReport {
  /** Durable sessions (DBOS workflows) deleted. */
  workflows: number;
  /** Transcripts (the PostgreSQL store's sessions, subagents' included) deleted with them. */
  transcripts: number;
}

/** Deletes the finished sessions last updated more than `olderThanMs` ago. */
export async function pruneSessions(
  pool: pg.Pool,
  dbos: DBOSClient,
  schemaName: string,
  olderThanMs: number,
  workflowName: string,
): Promise<PruneReport> {
  const schema = quoteIdent(schemaName);
  const { rows } = await pool.query<{ workflow_uuid: string }>(
    `SELECT workflow_uuid FROM dbos.workflow_status
     WHERE name = $1 AND status = ANY($2)
       AND updated_at < (extract(epoch FROM now()) * 1000)::bigint - $3`,
    [workflowName, FINISHED, olderThanMs],
  );
  const ids = rows.map((r) => r.workflow_uuid);
  if (ids.length === 0) return { workflows: 0, transcripts: 0 };
  // DBOS deletes its own rows (status, inputs, outputs, step checkpoints, messages, events).
  await dbos.deleteWorkflows(ids, true);
  await pool.query(`DELETE FROM ${schema}.session_messages WHERE workflow_id = ANY($1)`, [ids]);
  await pool.query(`DELETE FROM ${schema}.tool_outputs WHERE workflow_id = ANY($1)`, [ids]);
  // A session's transcript goes with the last workflow that wrote it: sessions named by a deleted
  // workflow id (the default) and their subagents', unless a remaining workflow has that id.
  const transcripts = await pool.query(
    `DELETE FROM ${schema}.sessions s
     WHERE split_part(s.session_id, '.agent-', 1) = ANY($1)
       AND NOT EXISTS (
         SELECT 1 FROM dbos.workflow_status w WHERE w.workflow_uuid = split_part(s.session_id, '.agent-', 1)
       )`,
    [ids],
  );
  return { workflows: ids.length, transcripts: transcripts.rowCount ?? 0 };
}

/** Parses an age such as `30d`, `12h`, `45m`, `90s` into milliseconds. */
export function parseAge(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(s|m|h|d)$/.exec(text.trim());
  if (!match) return undefined;
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as "s" | "m" | "h" | "d"];
  return Number(match[1]) * unit;
}
