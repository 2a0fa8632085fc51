/**
 * A durable session's SDK messages in PostgreSQL, for clients on other machines: the workflow writes
 * each message under (workflow id, position) and notifies `goat_session_messages`; a follower reads
 * what is there, then waits for notifications (of new messages, and of the workflow's end from
 * `session-signals.ts`; with a slow poll as a safety net) until the workflow has ended and nothing is
 * left to read.
 *
 * Positions count only the messages a replay reproduces exactly (everything but partial stream events
 * and tool progress ticks, which depend on timing), so a workflow replayed after a crash writes the
 * same messages at the same positions and the insert skips those already there.
 */
import pg from "pg";
import type { SDKMessage } from "../sdk/sdk-messages.js";
import {
  DatabaseUnreachableError,
  DEFAULT_DATABASE_TIMEOUT_MS,
  isConnectionError,
} from "./database-deadline.js";
import { quoteIdent } from "./schema.js";
import { ENDED_CHANNEL } from "./session-signals.js";

/** The NOTIFY channel; the payload is the workflow id. */
const MESSAGES_CHANNEL = "goat_session_messages";

/** True for the messages a follower gets: those a replay reproduces. */
function isDurableMessage(message: SDKMessage): boolean {
  return message.type !== "stream_event" && message.type !== "tool_progress";
}

/** Appends one workflow's messages in order, batching what piles up while a write is in flight. */
export interface MessageLogWriter {
  push(message: SDKMessage): void;
  /** Resolves once everything pushed is written (rejects with the first failure). */
  flush(): Promise<void>;
}

/** Starts writing `workflowId`'s messages through `pool`. */
export function createMessageLogWriter(pool: pg.Pool, schema: string, workflowId: string): MessageLogWriter {
  const table = `${quoteIdent(schema)}.session_messages`;
  let position = 0;
  let pending: Array<{ seq: number; json: string }> = [];
  let inFlight: Promise<void> | undefined;
  let failure: unknown;

  async function pump(): Promise<void> {
    while (pending.length > 0) {
      const batch = pending;
      pending = [];
      try {
        await pool.query(
          `WITH ins AS (
             INSERT INTO ${table} (workflow_id, seq, message)
             SELECT $1, seq, message FROM unnest($2::int[], $3::json[]) AS t(seq, message)
             ON CONFLICT (workflow_id, seq) DO NOTHING
           )
           SELECT pg_notify($4, $1)`,
          [workflowId, batch.map((m) => m.seq), batch.map((m) => m.json), MESSAGES_CHANNEL],
        );
      } catch (error) {
        failure ??= error;
      }
    }
    inFlight = undefined;
  }

  return {
    push(message) {
      if (!isDurableMessage(message)) return;
      pending.push({ seq: position++, json: JSON.stringify(message) });
      inFlight ??= pump();
    },
    async flush() {
      while (inFlight !== undefined) await inFlight;
      if (failure !== undefined) throw failure;
    },
  };
}

/** Options of `followMessages`. */
export interface FollowOptions {
  /** Start after this many messages (0: from the first). */
  from?: number;
  /** How often to look without a notification, in milliseconds (default 1000). */
  pollMs?: number;
  signal?: AbortSignal;
  /** Milliseconds the connection and each query may take before the follow fails (naming the database). */
  timeoutMs?: number;
}

/**
 * Yields a workflow's messages in order, live, until `isFinished()` says the workflow has ended and
 * every message it wrote has been yielded.
 */
export async function* followMessages(
  connectionString: string,
  schema: string,
  workflowId: string,
  isFinished: () => Promise<boolean>,
  options: FollowOptions = {},
): AsyncGenerator<SDKMessage> {
  const table = `${quoteIdent(schema)}.session_messages`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS;
  const client = new pg.Client({
    connectionString,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
  });
  client.on("error", () => {});
  let wake: (() => void) | undefined;
  // Set by a signal that came while no wait was under way (during the reads): the next wait is skipped.
  let signalled = false;
  client.on("notification", (n) => {
    if (n.payload !== workflowId) return;
    signalled = true;
    wake?.();
  });
  try {
    await client.connect();
  } catch (error) {
    throw new DatabaseUnreachableError(connectionString, "follow a session", timeoutMs, error);
  }
  const onAbort = () => wake?.();
  options.signal?.addEventListener("abort", onAbort);
  try {
    // The session's end too: its last messages are written before it ends, and without this signal
    // the follower saw them, found the session still running and slept a whole poll.
    await client.query(`LISTEN ${MESSAGES_CHANNEL}; LISTEN ${ENDED_CHANNEL}`);
    let next = options.from ?? 0;
    for (;;) {
      signalled = false;
      // Read the end state before the rows: a workflow seen finished has written all it will.
      const finished = await isFinished();
      const { rows } = await client.query<{ seq: number; message: string }>(
        `SELECT seq, message::text AS message FROM ${table} WHERE workflow_id = $1 AND seq >= $2 ORDER BY seq`,
        [workflowId, next],
      );
      for (const row of rows) {
        // A gap while the session runs: an earlier batch is not committed yet, so read again. Once it
        // has ended nothing more will come, and a gap (a write that failed) is skipped.
        if (row.seq !== next && !finished) break;
        next = row.seq + 1;
        yield JSON.parse(row.message) as SDKMessage;
      }
      if (finished) return;
      if (options.signal?.aborted) return;
      if (signalled) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.pollMs ?? 1000);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  } catch (error) {
    if (isConnectionError(error))
      throw new DatabaseUnreachableError(connectionString, "follow a session", timeoutMs, error);
    throw error;
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    await client.end().catch(() => {});
  }
}
