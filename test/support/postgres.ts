/**
 * The throwaway PostgreSQL cluster of the tests (`initdb` into a temp dir as a non-root user,
 * `pg_ctl start` on a free 127.0.0.1 port, removed by `stop()`). One implementation, in
 * bench/support/postgres.mjs, shared with the benchmarks. Test files that only need databases use the
 * run's shared cluster instead (test/support/shared-postgres.ts).
 */
export { findPostgres, startPostgres, type TestPostgres } from "../../bench/support/postgres.mjs";
