import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPostgres, startPostgres, type TestPostgres } from "../support/postgres.js";

const found = findPostgres();
const missing = "missing" in found ? found.missing : undefined;

describe.skipIf(missing !== undefined)("throwaway PostgreSQL cluster", () => {
  let server: TestPostgres;
  let starting: Promise<TestPostgres> | undefined;
  let longestStallMs = 0;
  beforeAll(async () => {
    const stalls = watchEventLoop();
    starting = startPostgres();
    try {
      server = await starting;
    } finally {
      longestStallMs = stalls.stop();
    }
  }, 60_000);
  // Stops the cluster even when its start outlasted the hook's time limit (a loaded machine): the
  // start goes on after the hook has failed, and a server nobody stops outlives the run.
  afterAll(async () => (await starting?.catch(() => undefined))?.stop(), 120_000);

  it("starts without holding the event loop: the worker keeps answering while initdb and pg_ctl run", () => {
    // Started with spawnSync, the worker froze for the whole start (5 s measured on a loaded
    // machine): it could neither answer its runner nor fire the hook's time limit.
    expect(longestStallMs).toBeLessThan(500);
  });

  it("answers queries on 127.0.0.1 and creates databases", async () => {
    const url = await server.createDatabase("harness_check");
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query(
        "SELECT current_database() AS db, inet_server_addr()::text AS addr",
      );
      expect(rows[0]).toEqual({ db: "harness_check", addr: "127.0.0.1/32" });
    } finally {
      await client.end();
    }
  });
});

if (missing) describe("throwaway PostgreSQL cluster", () => it.skip(missing, () => {}));

/** Measures the longest time the event loop went without running a 10 ms timer, until `stop()`. */
function watchEventLoop(): { stop(): number } {
  let last = performance.now();
  let longest = 0;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  };
  const timer = setInterval(tick, 10);
  return {
    stop() {
      tick();
      clearInterval(timer);
      return longest;
    },
  };
}
