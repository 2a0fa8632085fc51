/**
 * What the durable-session commands share (`durable-command.ts`, `durable-admin-command.ts`): strict
 * flag parsing, whole-number flags, and a client that is closed after its command, which waits for
 * the database at most GOAT_DATABASE_TIMEOUT_MS.
 */
import { parseArgs } from "node:util";
import { UsageError } from "./args.js";

/** The `goat-agent/dbos` module, loaded on demand. */
export type DbosModule = typeof import("../dbos/index.js");

/** Milliseconds client calls wait for the database (GOAT_DATABASE_TIMEOUT_MS). */
function databaseTimeout(env: NodeJS.ProcessEnv): number | undefined {
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
