import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPostgres, startPostgres, type TestPostgres } from "../support/postgres.js";

const found = findPostgres();
const missing = "missing" in found ? found.missing : undefined;

describe.skipIf(missing !== undefined)("throwaway PostgreSQL cluster", () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => server?.stop());

  it("answers queries on 127.0.0.1 and creates databases", async () => {
    const url = await server.createDatabase("harness_check");
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query("SELECT current_database() AS db, inet_server_addr()::text AS addr");
    await client.end();
    expect(rows[0]).toEqual({ db: "harness_check", addr: "127.0.0.1/32" });
  });
});

if (missing) describe("throwaway PostgreSQL cluster", () => it.skip(missing, () => {}));
