/**
 * Goat's own tables in PostgreSQL (DBOS keeps its tables in its own `dbos` schema):
 * - `sessions` / `session_entries`: the transcripts of the PostgreSQL session store;
 * - `session_messages`: each durable session's SDK messages, in order, for followers on other machines;
 * - `tool_outputs`: whole tool outputs too long for a step's checkpoint (`payload-limit.ts`);
 * - `workers`: the heartbeat of each durable worker, so live workers adopt a dead one's sessions.
 *
 * Created on first use under an advisory lock, so workers starting together do not race on DDL.
 */

import type pg from "pg";
import { InvalidOptionError } from "../errors.js";

/** Quotes an SQL identifier (a schema name from the options). */
export function quoteIdent(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name)) {
    throw new InvalidOptionError(
      "schema",
      `Invalid schema name ${JSON.stringify(name)}: use letters, digits and "_".`,
    );
  }
  return `"${name}"`;
}

/** Creates Goat's schema and tables when missing. Safe to call from many processes at once. */
export async function migrateGoatSchema(pool: pg.Pool, schemaName: string): Promise<void> {
  const schema = quoteIdent(schemaName);
  await underAdvisoryLock(pool, `goat-schema:${schemaName}`, async (client) => {
    await client.query(`
      CREATE SCHEMA IF NOT EXISTS ${schema};
      CREATE TABLE IF NOT EXISTS ${schema}.sessions (
        session_id text PRIMARY KEY,
        cwd text NOT NULL,
        first_prompt text NOT NULL DEFAULT '',
        last_modified bigint NOT NULL,
        message_count integer NOT NULL DEFAULT 0,
        total_cost_usd double precision NOT NULL DEFAULT 0,
        model text
      );
      CREATE INDEX IF NOT EXISTS sessions_by_cwd ON ${schema}.sessions (cwd);
      CREATE TABLE IF NOT EXISTS ${schema}.session_entries (
        seq bigserial PRIMARY KEY,
        session_id text NOT NULL REFERENCES ${schema}.sessions ON DELETE CASCADE,
        uuid text NOT NULL,
        type text NOT NULL,
        entry json NOT NULL,
        UNIQUE (session_id, uuid)
      );
      CREATE INDEX IF NOT EXISTS session_entries_in_order ON ${schema}.session_entries (session_id, seq);
      CREATE TABLE IF NOT EXISTS ${schema}.session_messages (
        workflow_id text NOT NULL,
        seq integer NOT NULL,
        message json NOT NULL,
        PRIMARY KEY (workflow_id, seq)
      );
      CREATE TABLE IF NOT EXISTS ${schema}.tool_outputs (
        output_id text PRIMARY KEY,
        workflow_id text NOT NULL,
        tool_name text NOT NULL,
        bytes bigint NOT NULL,
        content text NOT NULL
      );
      CREATE INDEX IF NOT EXISTS tool_outputs_by_workflow ON ${schema}.tool_outputs (workflow_id);
      CREATE TABLE IF NOT EXISTS ${schema}.workers (
        executor_id text PRIMARY KEY,
        started_at bigint NOT NULL,
        last_seen bigint NOT NULL
      );
    `);
  });
}

/**
 * Runs `work` in one transaction holding the advisory lock `key` (released at its end), so many
 * processes may run it at once and one does it; rolled back when `work` throws.
 */
export async function underAdvisoryLock(
  pool: pg.Pool,
  key: string,
  work: (client: pg.PoolClient) => Promise<void>,
): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [key]);
    await work(client);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
