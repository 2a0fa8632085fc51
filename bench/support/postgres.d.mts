/** Types of `postgres.mjs`: a throwaway PostgreSQL cluster for tests and benchmarks. */

/** A running cluster. */
export interface TestPostgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres`, trust authentication. */
  readonly url: string;
  readonly port: number;
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
