/**
 * `goat sessions`: the past sessions of the current directory, newest first, one line each (id, when,
 * turns, cost, size, first prompt), read from the heads and tails of the transcripts. With
 * `--database URL` (or GOAT_DATABASE_URL), the durable sessions in that PostgreSQL database instead
 * (`durable-session-list.ts`).
 *
 *   goat sessions [--cwd DIR] [--limit N] [--database URL]
 */
import { parseArgs } from "node:util";
import { viewerDatabaseUrl } from "../durable/durable-shared.js";
import { terminalSafe } from "../terminal/safe-text.js";
import { describeSession, summarizeSessions } from "./session-list.js";

/** Runs `goat sessions`; returns the exit status. */
export async function runSessions(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let values: { cwd?: string; limit?: string; database?: string; help?: boolean };
  try {
    values = parseArgs({
      args: joinNegativeLimit(argv),
      options: {
        cwd: { type: "string" },
        limit: { type: "string" },
        database: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }).values;
  } catch (error) {
    process.stderr.write(`goat sessions: ${(error as Error).message.split("\n")[0]}\n`);
    return 1;
  }
  if (values.help) {
    process.stdout.write(
      'Usage: goat sessions [--cwd DIR] [--limit N] [--database URL]\nLists the sessions of a directory; resume one with goat --resume ID.\nWith --database (or GOAT_DATABASE_URL), lists the durable sessions in that PostgreSQL database:\nstatus, age, step, worker, version, cost, first prompt and last error (--database "" for the local ones).\n',
    );
    return 0;
  }
  const limit = values.limit === undefined ? 20 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) {
    process.stderr.write(`goat sessions: --limit must be a whole number ≥ 1 (got "${values.limit}")\n`);
    return 1;
  }
  const databaseUrl = viewerDatabaseUrl(values.database, env);
  if (databaseUrl !== undefined) {
    if (values.cwd !== undefined) {
      // Durable sessions are listed for the whole database; a folder filter silently ignored would mislead.
      process.stderr.write(
        'goat sessions: --cwd lists a folder\'s local sessions; with a database (--database or GOAT_DATABASE_URL) every durable session is listed (--database "" for the local ones)\n',
      );
      return 1;
    }
    try {
      return await (await import("./durable-session-list.js")).listDurableSessions(databaseUrl, env, limit);
    } catch (error) {
      process.stderr.write(`goat sessions: ${terminalSafe((error as Error).message)}\n`);
      return 1;
    }
  }
  const cwd = values.cwd ?? process.cwd();
  const sessions = await summarizeSessions(cwd, env, limit);
  if (sessions.length === 0) {
    process.stdout.write(`No sessions in ${cwd} yet.\n`);
    return 0;
  }
  for (const s of sessions) process.stdout.write(`${s.sessionId}  ${describeSession(s)}\n`);
  process.stdout.write(
    `Resume one with: goat --resume ID${sessions.some((s) => !s.complete) ? " (+: large transcript, at least)" : ""}\n`,
  );
  return 0;
}

/**
 * `--limit -1` as `--limit=-1`: Node's parser reads a value starting with a dash as a missing one
 * ("argument is ambiguous"); joined, the value gets the limit's own message.
 */
function joinNegativeLimit(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--limit" && /^-\d/.test(argv[i + 1] ?? "")) out.push(`--limit=${argv[++i]}`);
    else out.push(argv[i]);
  }
  return out;
}
