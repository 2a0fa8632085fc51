/**
 * Where the default store puts files: `<home>/projects/<project key>/<session id>.jsonl`.
 *
 * The project key is the cwd with every non-alphanumeric character replaced by `-` (the same layout
 * as Claude Code's `~/.claude/projects`), so a person can find a project's sessions by eye.
 */

import { createHash } from "node:crypto";
import { homedir } from "node:os";
import { join } from "node:path";
import { GoatError } from "../errors.js";

/** Longest project key kept whole; longer ones are cut and get a hash suffix so they stay unique. */
const MAX_KEY_LENGTH = 200;

/** Goat's home: `$GOAT_HOME`, else `~/.goat`. */
export function goatHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.GOAT_HOME && env.GOAT_HOME.length > 0 ? env.GOAT_HOME : join(homedir(), ".goat");
}

/** The folder name for a cwd: `/tmp/a b` → `-tmp-a-b`. */
export function projectKey(cwd: string): string {
  const key = cwd.replace(/[^a-zA-Z0-9]/g, "-");
  if (key.length <= MAX_KEY_LENGTH) return key;
  // Cut keys could collide (two long paths sharing a prefix); the hash of the full cwd separates them.
  const hash = createHash("sha256").update(cwd).digest("hex").slice(0, 12);
  return `${key.slice(0, MAX_KEY_LENGTH)}-${hash}`;
}

/** The transcript file of a session. */
export function sessionFilePath(home: string, cwd: string, sessionId: string): string {
  return join(home, "projects", projectKey(cwd), `${sessionId}.jsonl`);
}

/**
 * Throws unless the id is safe as a file name. Session ids come from users (`resume: id`), and an id
 * like `../../x` must never address a file outside the store.
 */
export function assertSessionId(sessionId: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/.test(sessionId)) {
    throw new GoatError(
      `Invalid session id ${JSON.stringify(sessionId)}: use letters, digits, '.', '_' or '-' (a UUID is typical).`,
      { code: "invalid_session_id" },
    );
  }
}
