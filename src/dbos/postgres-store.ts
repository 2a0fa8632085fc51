/**
 * A `SessionStore` in PostgreSQL, so resume, fork and listing work from any machine that reaches the
 * database. It keeps the same entries the JSONL store writes (one row per entry, the entry's JSON
 * verbatim, in append order) plus one summary row per session that `list` reads without scanning
 * transcripts.
 *
 * Appends are idempotent: an entry whose uuid the session already has is skipped (`ON CONFLICT DO
 * NOTHING`), and the summary counts only the rows actually inserted. That is what lets a durable
 * workflow replayed after a crash append its transcript again without duplicating anything.
 */

import pg from "pg";
import { GoatError, InvalidOptionError } from "../errors.js";
import { assertSessionId } from "../session/paths.js";
import { promptPreview } from "../session/session-info.js";
import type { LoadOptions, SessionEntry, SessionInfo, SessionStore } from "../session/types.js";
import { migrateGoatSchema, quoteIdent } from "./schema.js";

/** Options of the PostgreSQL store. */
export interface PostgresSessionStoreOptions {
  /** `postgres://user@host:port/db`; ignored when `pool` is given. */
  connectionString?: string;
  /** A pool of your own (`new pg.Pool(...)`); the store then never ends it. */
  pool?: pg.Pool;
  /** Schema of Goat's tables (default `goat`); created with the tables on first use. */
  schema?: string;
}

/** The PostgreSQL store. */
export interface PostgresSessionStore extends SessionStore {
  /** Creates the schema and tables if they are missing (done on first use anyway). */
  migrate(): Promise<void>;
  /** The highest entry position written for a session (0 when none): a load bound, see `LoadUpTo`. */
  highWater(sessionId: string): Promise<number>;
  load(sessionId: string, options?: PostgresLoadOptions): Promise<SessionEntry[] | undefined>;
  /** Ends the pool if the store made it. */
  close(): Promise<void>;
}

/** `load` options, plus a bound that makes a load repeatable while others append. */
export interface PostgresLoadOptions extends LoadOptions {
  /** Only entries at or below this position (from `highWater`). */
  upTo?: number;
}

/** Creates the store. Nothing connects until the first call. */
export function createPostgresSessionStore(options: PostgresSessionStoreOptions): PostgresSessionStore {
  if (!options.pool && !options.connectionString) {
    throw new InvalidOptionError(
      "connectionString",
      "createPostgresSessionStore needs a connectionString or a pool.",
    );
  }
  const ownPool = options.pool === undefined;
  const pool = options.pool ?? new pg.Pool({ connectionString: options.connectionString, max: 4 });
  // An idle client that loses its connection emits "error"; unhandled, that would end the process.
  if (ownPool) pool.on("error", () => {});
  const schema = quoteIdent(options.schema ?? "goat");
  const sessions = `${schema}.sessions`;
  const entriesTable = `${schema}.session_entries`;
  let ready: Promise<void> | undefined;
  const migrate = () => {
    ready ??= migrateGoatSchema(pool, options.schema ?? "goat").catch((error) => {
      ready = undefined;
      throw error;
    });
    return ready;
  };

  return {
    migrate,

    async append(sessionId, entries) {
      assertSessionId(sessionId);
      if (entries.length === 0) return;
      for (const entry of entries) {
        if (entry.sessionId !== sessionId) {
          throw new GoatError(
            `Entry ${entry.uuid} belongs to session ${entry.sessionId}, not ${sessionId}.`,
            {
              code: "invalid_entry",
            },
          );
        }
      }
      await migrate();
      const first = entries[0];
      if (first.type === "header") {
        await pool.query(
          `INSERT INTO ${sessions} (session_id, cwd, model, last_modified)
           VALUES ($1, $2, $3, ${NOW_MS}) ON CONFLICT (session_id) DO NOTHING`,
          [sessionId, noNul(first.cwd), first.model ?? null],
        );
      }
      const columns = summaryColumns(entries);
      try {
        const { rowCount } = await pool.query(
          `WITH input AS (
             SELECT * FROM unnest($2::text[], $3::text[], $4::json[], $5::int[], $6::float8[], $7::text[], $8::text[])
               WITH ORDINALITY AS t(uuid, type, entry, msg, cost, model, prompt, ord)
           ), ins AS (
             INSERT INTO ${entriesTable} (session_id, uuid, type, entry)
             SELECT $1, uuid, type, entry FROM input ORDER BY ord
             ON CONFLICT (session_id, uuid) DO NOTHING
             RETURNING uuid
           ), agg AS (
             SELECT count(*) AS n, coalesce(sum(i.msg), 0) AS msgs, coalesce(sum(i.cost), 0) AS cost,
                    (array_agg(i.model ORDER BY i.ord DESC) FILTER (WHERE i.model IS NOT NULL))[1] AS model,
                    (array_agg(i.prompt ORDER BY i.ord) FILTER (WHERE i.prompt <> ''))[1] AS prompt
             FROM input i JOIN ins USING (uuid)
           )
           UPDATE ${sessions} s SET
             message_count = s.message_count + agg.msgs,
             total_cost_usd = s.total_cost_usd + agg.cost,
             model = coalesce(agg.model, s.model),
             first_prompt = CASE WHEN s.first_prompt = '' THEN coalesce(agg.prompt, '') ELSE s.first_prompt END,
             last_modified = CASE WHEN agg.n > 0 THEN greatest(${NOW_MS}, s.last_modified + 1) ELSE s.last_modified END
           FROM agg WHERE s.session_id = $1`,
          [
            sessionId,
            entries.map((e) => e.uuid),
            entries.map((e) => e.type),
            entries.map((e) => JSON.stringify(e)),
            columns.messages,
            columns.costs,
            columns.models,
            columns.prompts,
          ],
        );
        if (rowCount === 0) throw missingSession(sessionId);
      } catch (error) {
        // The entries' foreign key: the session has no header row yet.
        if ((error as { code?: string }).code === "23503") throw missingSession(sessionId);
        throw error;
      }
    },

    async load(sessionId, loadOptions?: PostgresLoadOptions) {
      assertSessionId(sessionId);
      await migrate();
      const upTo = loadOptions?.upTo ?? Number.MAX_SAFE_INTEGER;
      const { rows } = await pool.query<{ entry: string; exists: boolean }>(
        loadOptions?.fromLastBoundary === true
          ? // Only what a resume reads: the header, the per-run records and everything from the last boundary on.
            `WITH b AS (SELECT max(seq) AS s FROM ${entriesTable}
                        WHERE session_id = $1 AND type = 'compact_boundary' AND seq <= $2)
             SELECT e.entry::text AS entry FROM ${entriesTable} e, b
             WHERE e.session_id = $1 AND e.seq <= $2
               AND (b.s IS NULL OR e.seq >= b.s OR e.type IN ('header', 'result', 'model_change'))
             ORDER BY e.seq`
          : `SELECT entry::text AS entry FROM ${entriesTable} WHERE session_id = $1 AND seq <= $2 ORDER BY seq`,
        [sessionId, upTo],
      );
      if (rows.length === 0) {
        const found = await pool.query(`SELECT 1 FROM ${sessions} WHERE session_id = $1`, [sessionId]);
        return found.rowCount === 0 ? undefined : [];
      }
      return rows.map((row) => JSON.parse(row.entry) as SessionEntry);
    },

    async highWater(sessionId) {
      assertSessionId(sessionId);
      await migrate();
      const { rows } = await pool.query<{ s: string | null }>(
        `SELECT max(seq)::text AS s FROM ${entriesTable} WHERE session_id = $1`,
        [sessionId],
      );
      return Number(rows[0]?.s ?? 0);
    },

    async list(listOptions) {
      await migrate();
      const cwd = listOptions?.cwd;
      const { rows } = await pool.query<SessionRow>(
        `SELECT session_id, cwd, first_prompt, last_modified::text, message_count, total_cost_usd, model
         FROM ${sessions}${cwd !== undefined ? " WHERE cwd = $1" : ""}`,
        cwd !== undefined ? [noNul(cwd)] : [],
      );
      return rows.map(toInfo);
    },

    async delete(sessionId) {
      assertSessionId(sessionId);
      await migrate();
      await pool.query(`DELETE FROM ${sessions} WHERE session_id = $1`, [sessionId]);
    },

    async close() {
      if (ownPool) await pool.end();
    },
  };
}

/** The database's clock in milliseconds: every worker writes with the same clock. */
const NOW_MS = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint";

interface SessionRow {
  session_id: string;
  cwd: string;
  first_prompt: string;
  last_modified: string;
  message_count: number;
  total_cost_usd: number;
  model: string | null;
}

function toInfo(row: SessionRow): SessionInfo {
  return {
    sessionId: row.session_id,
    cwd: row.cwd,
    firstPrompt: row.first_prompt,
    lastModified: Number(row.last_modified),
    messageCount: row.message_count,
    totalCostUsd: row.total_cost_usd,
    ...(row.model !== null ? { model: row.model } : {}),
  };
}

/**
 * What each entry adds to the session's summary row, computed the way the JSONL listing does
 * (`session-info.ts`), so both stores list the same figures.
 */
function summaryColumns(entries: SessionEntry[]) {
  const messages: number[] = [];
  const costs: number[] = [];
  const models: Array<string | null> = [];
  const prompts: string[] = [];
  for (const entry of entries) {
    const isMessage = (entry.type === "user" || entry.type === "assistant") && entry.copy_of === undefined;
    messages.push(isMessage ? 1 : 0);
    costs.push(entry.type === "result" ? entry.total_cost_usd : 0);
    models.push(entry.type === "model_change" ? entry.model : null);
    prompts.push(isMessage && entry.type === "user" ? noNul(promptPreview(entry.message)) : "");
  }
  return { messages, costs, models, prompts };
}

/** PostgreSQL text cannot hold NUL characters; JSON columns get them escaped, plain text columns do not. */
function noNul(text: string): string {
  return text.includes("\u0000") ? text.replaceAll("\u0000", "\uFFFD") : text;
}

function missingSession(sessionId: string): GoatError {
  return new GoatError(
    `Session ${sessionId} does not exist yet: its first append must start with a header entry (which carries the cwd).`,
    { code: "invalid_entry" },
  );
}
