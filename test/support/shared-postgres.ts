/**
 * The PostgreSQL cluster that the dbos test files share: one per vitest run instead of one per file
 * (each `initdb` + `pg_ctl start` is 1.5-2 s of a worker's wall and CPU time, blocking it).
 *
 * test/global-setup.ts makes an empty directory for it and hands its path to the workers
 * (`provide`/`inject`), but starts nothing: a run that needs no database pays nothing. The first test
 * file that calls `sharedPostgres()`, in whichever worker process, takes the lock (an atomic `mkdir`),
 * starts the cluster and writes its state (written to a temp file, then renamed); files in other
 * workers wait for that state file, or for the error file the starter writes when it fails. Within one
 * worker the promise is kept. The global teardown stops the cluster from the state file and removes
 * the directory (`stopSharedPostgres`).
 *
 * Files share the server, not databases: `createDatabase(name)` adds the worker's pid and a counter to
 * the name, and the handle has no `stop()`. test/dbos/postgres-harness.test.ts, which tests starting
 * and stopping, keeps a cluster of its own (`startPostgres()`).
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { inject } from "vitest";
import {
  type PostgresState,
  postgresAt,
  startPostgres,
  stopPostgresAt,
  type TestPostgres,
} from "../../bench/support/postgres.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    /** The directory of the run's shared PostgreSQL cluster (lock, state), made by test/global-setup.ts. */
    sharedPostgresDir: string;
  }
}

/** The shared cluster, as a test file sees it: databases of its own, no `stop()`. */
export type SharedPostgres = Pick<TestPostgres, "port" | "urlOf" | "createDatabase">;

/** How long a worker waits for another worker to start the cluster. */
const WAIT_MS = 60_000;
const POLL_MS = 50;

const filesOf = (dir: string) => ({
  lock: join(dir, "lock"),
  state: join(dir, "state.json"),
  error: join(dir, "error.txt"),
});

/** Writes `path` whole or not at all: readers polling for it never see half of it. */
function writeAtomically(path: string, text: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, path);
}

/** For test/global-setup.ts: a new, empty directory for the run's shared cluster. */
export function makeSharedPostgresDir(): string {
  return mkdtempSync(join(tmpdir(), "goat-shared-pg-"));
}

/** For the global teardown: stops the cluster if a worker started one, and removes the directory. */
export function stopSharedPostgres(dir: string): void {
  const { state } = filesOf(dir);
  try {
    if (existsSync(state)) stopPostgresAt(JSON.parse(readFileSync(state, "utf8")) as PostgresState);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let shared: Promise<SharedPostgres> | undefined;

/** The run's shared cluster, started by the first caller in any worker. */
export function sharedPostgres(): Promise<SharedPostgres> {
  shared ??= attach(inject("sharedPostgresDir"));
  return shared;
}

async function attach(dir: string | undefined): Promise<SharedPostgres> {
  if (!dir) {
    throw new Error(
      "sharedPostgres(): no sharedPostgresDir was provided; test/global-setup.ts provides it (run the tests with vitest.config.ts)",
    );
  }
  const files = filesOf(dir);
  let starter = true;
  try {
    mkdirSync(files.lock);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    starter = false;
  }
  const state = starter ? await start(files) : await waitForState(files);
  const server = postgresAt(state);
  let created = 0;
  return {
    port: server.port,
    urlOf: server.urlOf,
    createDatabase: (name) =>
      server.createDatabase(`${name}_${process.pid}_${++created}_${randomBytes(2).toString("hex")}`),
  };
}

async function start(files: ReturnType<typeof filesOf>): Promise<PostgresState> {
  let server: TestPostgres | undefined;
  try {
    server = await startPostgres();
    writeAtomically(files.state, JSON.stringify(server.state));
    return server.state;
  } catch (error) {
    // Nobody else knows of a cluster that has no state file: stop it here.
    if (server && !existsSync(files.state)) await server.stop().catch(() => {});
    writeAtomically(files.error, error instanceof Error ? (error.stack ?? error.message) : String(error));
    throw error;
  }
}

async function waitForState(files: ReturnType<typeof filesOf>): Promise<PostgresState> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    if (existsSync(files.state)) return JSON.parse(readFileSync(files.state, "utf8")) as PostgresState;
    if (existsSync(files.error)) {
      throw new Error(
        `the shared PostgreSQL cluster failed to start in another test worker:\n${readFileSync(files.error, "utf8")}`,
      );
    }
    if (Date.now() > deadline) {
      throw new Error(
        `no shared PostgreSQL cluster after ${WAIT_MS / 1000} s: the worker that took ${files.lock} neither wrote ${files.state} nor ${files.error}`,
      );
    }
    await sleep(POLL_MS);
  }
}
