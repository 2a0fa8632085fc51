/** Types of `postgres.mjs`: a throwaway PostgreSQL cluster for tests and benchmarks. */

/** What locates a running cluster, as plain data (it survives JSON): enough to reach it and stop it. */
export interface PostgresState {
  /** The directory of `pg_ctl` and `initdb`. */
  readonly bin: string;
  /** The cluster's directory (data, log, socket): removed when it stops. */
  readonly dir: string;
  /** The data directory (`dir/data`). */
  readonly data: string;
  /** The user the server runs as (`postgres` when started as root), or undefined for the current user. */
  readonly asUser?: string;
  /** The port it listens on, on 127.0.0.1. */
  readonly port: number;
}

/** A running cluster. */
export interface TestPostgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres`, trust authentication. */
  readonly url: string;
  readonly port: number;
  /** What `postgresAt` and `stopPostgresAt` need, in this or another process. */
  readonly state: PostgresState;
  /** A URL for another database of this cluster (created by `createDatabase`). */
  urlOf(database: string): string;
  /** Creates an empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server (immediate shutdown) and removes its directory. */
  stop(): Promise<void>;
}

/** Where the server binaries are, or why there are none. */
export function findPostgres(): { bin: string } | { missing: string };

/** Starts a new cluster. Throws when the binaries are missing (check `findPostgres()` first). */
export function startPostgres(): Promise<TestPostgres>;

/** A handle on the running cluster `state` describes; its `stop()` stops that cluster. */
export function postgresAt(state: PostgresState): TestPostgres;

/** Stops the cluster `state` describes (immediate shutdown, synchronous) and removes its directory. */
export function stopPostgresAt(state: PostgresState): void;
