/**
 * `goat-agent/dbos`: durable agent sessions on DBOS Transact and PostgreSQL, and a PostgreSQL session
 * store. Loaded only by programs that import it: the main entry never loads DBOS or `pg`, which are
 * optional peer dependencies (`npm install @dbos-inc/dbos-sdk pg`).
 */

/** The client: submit, follow, steer, send follow-ups, cancel, read results — from any process. */
export {
  createDurableClient,
  type DurableClient,
  type DurableClientOptions,
  type DurableSessionHandle,
  type DurableSessionStatus,
} from "./client.js";
/** A `SessionStore` in PostgreSQL: resume, fork and list from any machine. */
export {
  createPostgresSessionStore,
  type PostgresLoadOptions,
  type PostgresSessionStore,
  type PostgresSessionStoreOptions,
} from "./postgres-store.js";
/** What a durable session is asked to do, and what it returns. */
export type {
  DurableSessionOptions,
  DurableSessionOutcome,
  DurableSessionRequest,
} from "./session-workflow.js";
/** A worker process: runs queued durable sessions, adopts those of dead workers. */
export {
  DEFAULT_APP_NAME,
  DEFAULT_QUEUE_NAME,
  type DurableWorker,
  type DurableWorkerOptions,
  startDurableWorker,
} from "./worker.js";
