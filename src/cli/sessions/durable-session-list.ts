/**
 * `goat sessions --database URL`: the durable sessions in PostgreSQL, newest first, one line each as
 * the local listing prints its sessions (the id first, then what it is at, the first prompt last),
 * and under a line the session's last error when it has one. Read-only, through the dbos entry's
 * reader; every query gives up after GOAT_DATABASE_TIMEOUT_MS naming the database.
 */
import type { DurableSessionSummary } from "../../dbos/index.js";
import { age } from "../durable/durable-admin-command.js";
import { databaseTimeout, loadDbos } from "../durable/durable-shared.js";
import { terminalSafe } from "../terminal/safe-text.js";

/** Prints the newest `limit` durable sessions of the database at `databaseUrl`; returns the exit status. */
export async function listDurableSessions(
  databaseUrl: string,
  env: NodeJS.ProcessEnv,
  limit: number,
): Promise<number> {
  const dbos = await loadDbos();
  const reader = await dbos.createDurableSessionReader({ databaseUrl, timeoutMs: databaseTimeout(env) });
  try {
    const sessions = await reader.list({ limit });
    if (sessions.length === 0) {
      process.stdout.write(`No durable sessions in ${terminalSafe(reader.label)} yet.\n`);
      return 0;
    }
    for (const s of sessions) process.stdout.write(durableSessionLines(s));
    process.stdout.write("Follow one with: goat follow ID (goat durable show ID for the whole row)\n");
    return 0;
  } finally {
    await reader.close();
  }
}

/** One session: id, status, age, step, worker, version, cost, first prompt; then its last error. */
export function durableSessionLines(s: DurableSessionSummary): string {
  const step = s.lastStep ? `step ${s.lastStep.number} ${s.lastStep.name}` : "no step yet";
  const cost = s.costUsd !== undefined ? `$${s.costUsd.toFixed(4)}` : "-";
  // One line per session: a newline or tab of the prompt becomes a space, anything else is escaped below.
  const prompt = oneLine(s.prompt) || "(no prompt)";
  const fields = [
    s.workflowId,
    s.status.padEnd(9),
    age(s.createdAt).padStart(4),
    step,
    s.executorId ?? "-",
    s.applicationVersion ?? "-",
    cost.padStart(9),
    prompt,
  ];
  const error = s.error ? `    error: ${terminalSafe(oneLine(s.error.split("\n")[0]).slice(0, 200))}\n` : "";
  return `${terminalSafe(fields.join("  "))}\n${error}`;
}

/** A newline or tab becomes a space (the caller escapes the rest with terminalSafe). */
function oneLine(text: string): string {
  return text.replace(/[\n\t\r]/g, " ");
}
