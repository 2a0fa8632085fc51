/**
 * `goat-agent/dbos`: durable agent sessions on DBOS Transact and PostgreSQL, and a PostgreSQL session
 * store. Loaded only by programs that import it: the main entry never loads DBOS or `pg`, which are
 * optional peer dependencies (`npm install @dbos-inc/dbos-sdk pg`).
 */

/** A `SessionStore` in PostgreSQL: resume, fork and list from any machine. */
export {
  createPostgresSessionStore,
  type PostgresLoadOptions,
  type PostgresSessionStore,
  type PostgresSessionStoreOptions,
} from "./postgres-store.js";
