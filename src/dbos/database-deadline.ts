/**
 * Every client call to the database within a bounded time.
 *
 * DBOS's client retries a lost connection forever (by design: a workflow must outlive a database
 * restart), so a `goat submit` against a stopped PostgreSQL printed nothing and never returned. A
 * client is a person or a program waiting for an answer: each of its calls races a deadline, and
 * past it fails with an error that names the database (without its password) and the time waited.
 * The call DBOS left running keeps retrying in the background until the client is closed.
 */
import { GoatError } from "../errors.js";

/** Default time a client call may take before it fails, in milliseconds. */
export const DEFAULT_DATABASE_TIMEOUT_MS = 10_000;

/** The database's address as shown in messages: user@host:port/database, never the password. */
function databaseLabel(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    const user = url.username ? `${decodeURIComponent(url.username)}@` : "";
    const host = url.hostname || url.searchParams.get("host") || "localhost";
    return `${user}${host}:${url.port || "5432"}${url.pathname}`;
  } catch {
    return "(an unparsable DATABASE_URL)";
  }
}

/** The error of a call the database did not answer in time (code `database_unreachable`). */
export class DatabaseUnreachableError extends GoatError {
  constructor(databaseUrl: string, what: string, timeoutMs: number, cause?: unknown) {
    const reason = cause instanceof Error ? ` (${cause.message})` : "";
    super(
      `PostgreSQL at ${databaseLabel(databaseUrl)} did not answer within ${timeoutMs / 1000} s while trying to ${what}${reason}. Is it running and reachable?`,
      { code: "database_unreachable", cause },
    );
    this.name = "DatabaseUnreachableError";
  }
}

/** Runs `call`, failing with `DatabaseUnreachableError` when it takes longer than `timeoutMs`. */
export async function withDatabaseDeadline<T>(
  databaseUrl: string,
  timeoutMs: number,
  what: string,
  call: () => Promise<T>,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DatabaseUnreachableError(databaseUrl, what, timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([call(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** A connection error of `pg` (refused, reset, unknown host, terminated), as opposed to an SQL error. */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (
    typeof code === "string" &&
    /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|ETIMEDOUT|EHOSTUNREACH|57P0[1-3])$/.test(code)
  )
    return true;
  const message = error instanceof Error ? error.message : "";
  return /Connection terminated|timeout expired|Client was closed|not queryable/i.test(message);
}
