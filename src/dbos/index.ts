/**
 * `goat-agent/dbos`: durable agent sessions on DBOS Transact and PostgreSQL, and a PostgreSQL session
 * store. Loaded only by programs that import it: the main entry never loads DBOS or `pg`, which are
 * optional peer dependencies (`npm install @dbos-inc/dbos-sdk pg`).
 */

/** The application version a worker derives from Goat's version and its sessions' tool set. */
export { deriveApplicationVersion, type SessionToolSet } from "./app-version.js";
/** The client: submit, follow, steer, send follow-ups, cancel, read results — from any process. */
export {
  createDurableClient,
  type DurableClient,
  type DurableClientOptions,
  type DurableSessionHandle,
  type DurableSessionStatus,
  type DurableSubmitOptions,
} from "./client.js";
/** What a client call throws when PostgreSQL does not answer in time. */
export { DatabaseUnreachableError, DEFAULT_DATABASE_TIMEOUT_MS } from "./database-deadline.js";
/** The default bound on a tool step's recorded result. */
export { DEFAULT_STEP_PAYLOAD_BYTES } from "./payload-limit.js";
/** A `SessionStore` in PostgreSQL: resume, fork and list from any machine. */
export {
  createPostgresSessionStore,
  type PostgresLoadOptions,
  type PostgresSessionStore,
  type PostgresSessionStoreOptions,
} from "./postgres-store.js";
/** Retention: what a prune removed; ages such as `7d`. */
export { type PruneReport, parseAge } from "./retention.js";
/** The operator's view of a session. */
export type { DurableSessionSummary, ListSessionsFilter } from "./session-admin.js";
/** A read-only view of durable sessions for viewers: list with steps, messages so far, live follow. */
export {
  createDurableSessionReader,
  type DurableSessionReader,
  type DurableSessionReaderOptions,
  type DurableSessionTranscript,
} from "./session-reader.js";
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
