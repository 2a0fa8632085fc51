/**
 * What the durable-session commands share (`durable-command.ts`, `durable-admin-command.ts`, and the
 * viewers `goat sessions --database` and `goat serve --database`): loading DBOS, strict flag parsing,
 * whole-number flags, the viewers' database, and a client that is closed after its command, which
 * waits for the database at most GOAT_DATABASE_TIMEOUT_MS.
 */
import { parseArgs } from "node:util";
import { UsageError } from "../args.js";

/** The `goat-agent/dbos` module, loaded on demand. */
export type DbosModule = typeof import("../../dbos/index.js");

/** Loads `goat-agent/dbos`, saying how to install DBOS and pg when they are missing. */
export async function loadDbos(): Promise<DbosModule> {
  hidePgNextMajorNotices();
  try {
    return await import("../../dbos/index.js");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND") {
      throw new Error(
        "durable sessions need @dbos-inc/dbos-sdk and pg next to goat-agent: npm install @dbos-inc/dbos-sdk pg (add -g for a global goat).",
      );
    }
    throw error;
  }
}

/**
 * pg 8 warns about its own next major version ("… will be removed in pg@9.0") when pg-pool, which
 * DBOS uses, queries a client that is still busy: a notice for those libraries' authors that a goat
 * user can do nothing about. Those notices are dropped; every other warning is printed as before.
 */
function hidePgNextMajorNotices(): void {
  const emitWarning = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === "string" ? warning : warning.message;
    if (/will be removed in pg@9/.test(text)) return;
    emitWarning(warning, ...rest);
  }) as typeof process.emitWarning;
}

/**
 * The database a viewer (`goat sessions`, `goat serve`) reads: `--database URL`, else
 * GOAT_DATABASE_URL; undefined means the local session files. DATABASE_URL, which the durable commands
 * read first, is not taken here: it often names an application's own database, and would silently turn
 * the local listing into a PostgreSQL one. An empty `--database ""` asks for the local files.
 */
export function viewerDatabaseUrl(flag: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const url = flag ?? env.GOAT_DATABASE_URL;
  return url === undefined || url === "" ? undefined : url;
}

/** Milliseconds client calls wait for the database (GOAT_DATABASE_TIMEOUT_MS). */
export function databaseTimeout(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env.GOAT_DATABASE_TIMEOUT_MS;
  if (raw === undefined || raw === "") return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(
      `GOAT_DATABASE_TIMEOUT_MS expects a positive whole number, got ${JSON.stringify(raw)}.`,
    );
  return n;
}

export async function withClient(
  dbos: DbosModule,
  databaseUrl: string,
  env: NodeJS.ProcessEnv,
  body: (client: Awaited<ReturnType<DbosModule["createDurableClient"]>>) => Promise<number>,
): Promise<number> {
  const client = await dbos.createDurableClient({ databaseUrl, timeoutMs: databaseTimeout(env) });
  try {
    return await body(client);
  } finally {
    await client.close();
  }
}

/** Flag specs of `parseArgs`. */
export type FlagSpecs = Record<string, { type: "string" | "boolean" }>;

/** Parses flags strictly (an unknown flag is a usage error); string flags come back as strings. */
export function parse(argv: string[], options: FlagSpecs): { values: Flags; positionals: string[] } {
  const parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  return { values: parsed.values as Flags, positionals: parsed.positionals };
}

/** Parsed flag values: strings for string flags, true for boolean ones. */
export type Flags = Record<string, string | undefined> & {
  steer?: boolean;
  detach?: boolean;
  "fork-session"?: boolean;
};

export function one(positionals: string[], what: string): string {
  if (positionals.length !== 1) throw new UsageError(`Expected ${what}.`);
  return positionals[0];
}

export function count(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`${flag} expects a positive whole number, got ${JSON.stringify(value)}.`);
  return n;
}
