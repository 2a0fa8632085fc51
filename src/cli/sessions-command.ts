/**
 * `goat sessions`: the past sessions of the current directory, newest first, one line each (id, when,
 * turns, cost, size, first prompt), read from the heads and tails of the transcripts.
 *
 *   goat sessions [--cwd DIR] [--limit N]
 */
import { parseArgs } from "node:util";
import { describeSession, summarizeSessions } from "./session-list.js";

/** Runs `goat sessions`; returns the exit status. */
export async function runSessions(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let values: { cwd?: string; limit?: string; help?: boolean };
  try {
    values = parseArgs({
      args: argv,
      options: { cwd: { type: "string" }, limit: { type: "string" }, help: { type: "boolean", short: "h" } },
      strict: true,
    }).values;
  } catch (error) {
    process.stderr.write(`goat sessions: ${(error as Error).message.split("\n")[0]}\n`);
    return 1;
  }
  if (values.help) {
    process.stdout.write(
      "Usage: goat sessions [--cwd DIR] [--limit N]\nLists the sessions of a directory; resume one with goat --resume ID.\n",
    );
    return 0;
  }
  const limit = values.limit === undefined ? 20 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) {
    process.stderr.write(`goat sessions: --limit must be a whole number ≥ 1 (got "${values.limit}")\n`);
    return 1;
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
