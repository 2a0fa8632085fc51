/**
 * A throwaway PostgreSQL cluster for tests: `initdb` into a temp directory, `pg_ctl start` on a free
 * 127.0.0.1 port with its socket in that directory, and `stop()` shuts it down and removes it all.
 * No Docker, no shared server: each caller gets its own cluster (a second or two to start). The handle's
 * `state` is plain data (JSON) that `postgresAt(state)` turns back into a handle and `stopPostgresAt(state)`
 * stops from, in another process: the tests' shared cluster (test/support/shared-postgres.ts) is
 * started by one test worker and stopped by vitest's global teardown.
 *
 * PostgreSQL refuses to run as root, so as root the cluster is created and run as the `postgres`
 * user (Debian's package creates it) through `runuser`; as any other user it runs as that user.
 * `findPostgres()` says why not when the binaries are missing, so tests can skip with that reason.
 */
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import pg from "pg";

/** Where the server binaries are, or why there are none. */
export function findPostgres() {
  const candidates = [];
  if (process.env.GOAT_PG_BIN) candidates.push(process.env.GOAT_PG_BIN);
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
    for (const v of versions) candidates.push(join(root, v, "bin"));
  }
  for (const dir of (process.env.PATH ?? "").split(":")) if (dir) candidates.push(dir);
  for (const dir of candidates) {
    if (existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"))) return { bin: dir };
  }
  return {
    missing:
      "PostgreSQL server binaries (initdb, pg_ctl) not found: install Debian's `postgresql` package (CI does) or set GOAT_PG_BIN",
  };
}

/** A port on 127.0.0.1 that was free a moment ago. */
async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The command line that runs a server binary as the user that owns the cluster. */
function commandAs(asUser, bin, args) {
  return asUser ? ["runuser", ["-u", asUser, "--", bin, ...args]] : [bin, args];
}

/** Runs a server binary as the cluster's owner and waits (synchronous: exit handlers stop with it). */
function runAs(asUser, bin, args) {
  const [command, argv] = commandAs(asUser, bin, args);
  const done = spawnSync(command, argv, { encoding: "utf8", timeout: 60_000 });
  if (done.status !== 0) {
    throw new Error(
      `${[command, ...argv].join(" ")} failed (${done.status ?? done.signal}): ${done.stderr || done.stdout}`,
    );
  }
}

/**
 * The same, without blocking the caller's event loop: `initdb` and `pg_ctl start` take seconds, tens
 * of them on a loaded machine, during which a test worker must still answer its runner and fire its
 * hook time limits.
 */
function runAsAsync(asUser, bin, args) {
  const [command, argv] = commandAs(asUser, bin, args);
  return new Promise((resolve, reject) => {
    execFile(command, argv, { encoding: "utf8", timeout: 60_000 }, (error, stdout, stderr) => {
      if (!error) return resolve();
      const why = error.code ?? error.signal ?? error.message;
      reject(new Error(`${[command, ...argv].join(" ")} failed (${why}): ${stderr || stdout}`));
    });
  });
}

/** Starts a new cluster. Throws when the binaries are missing (check `findPostgres()` first). */
export async function startPostgres() {
  const found = findPostgres();
  if ("missing" in found) throw new Error(found.missing);
  const { bin } = found;
  const asRoot = userInfo().uid === 0;
  const asUser = asRoot ? "postgres" : undefined;
  const dir = mkdtempSync(join(tmpdir(), "goat-pg-"));
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, "data");
  try {
    await runAsAsync(asUser, join(bin, "initdb"), [
      "-D",
      data,
      "-U",
      "postgres",
      "--auth=trust",
      "--no-sync",
      "-E",
      "UTF8",
      "--locale=C",
    ]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  // A few tries: another process may take the port between freePort() and the server's bind.
  let port = 0;
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    const settings = [
      `-p ${port}`,
      `-k ${dir}`,
      "-c listen_addresses=127.0.0.1",
      // A test cluster: durability against power loss buys nothing and costs every commit a sync.
      "-c fsync=off",
      "-c synchronous_commit=off",
      "-c full_page_writes=off",
      "-c max_connections=200",
    ].join(" ");
    try {
      await runAsAsync(asUser, join(bin, "pg_ctl"), [
        "-D",
        data,
        "-l",
        join(dir, "log"),
        "-o",
        settings,
        "-w",
        "start",
      ]);
      break;
    } catch (error) {
      // pg_ctl gives up waiting after 60 s, and our time limit kills it, but the server it launched
      // may still be starting: stop it, or it outlives the directory removed below (and holds the
      // data directory's lock against the next attempt).
      try {
        runAs(asUser, join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"]);
      } catch {
        // none was running
      }
      if (attempt >= 2) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }
  return postgresAt({ bin, dir, data, asUser, port });
}

/**
 * A handle on the running cluster that `state` (a handle's `state`, possibly read back from JSON in
 * another process) describes. Its `stop()` stops that cluster.
 */
export function postgresAt(state) {
  const urlOf = (database) => `postgres://postgres@127.0.0.1:${state.port}/${database}`;
  let stopped = false;
  return {
    url: urlOf("postgres"),
    port: state.port,
    state,
    urlOf,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: urlOf("postgres") });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      } finally {
        await client.end();
      }
      return urlOf(name);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      stopPostgresAt(state);
    },
  };
}

/** Stops the cluster that `state` describes (immediate shutdown, synchronous) and removes its directory. */
export function stopPostgresAt(state) {
  try {
    runAs(state.asUser, join(state.bin, "pg_ctl"), ["-D", state.data, "-m", "immediate", "-w", "stop"]);
  } finally {
    rmSync(state.dir, { recursive: true, force: true });
  }
}
