/**
 * The folders the user trusts, kept in `$GOAT_HOME/trust.json` (default `~/.goat/trust.json`):
 *
 *   { "trustedFolders": { "/home/me/src/app": { "trustedAt": "2025-06-01T09:30:00.000Z" } } }
 *
 * A file of its own rather than a key of the user's `settings.json`: it is state Goat writes, not a
 * setting the user edits, so Goat never rewrites the user's hand-written file, and a project
 * cannot reach it (it lives in the user's Goat home, where no project file is read from). Claude
 * Code keeps the same answer in `~/.claude.json`, its state file, not in its settings.
 *
 * Trusting a folder covers its subfolders. The home folder and `/` are never remembered (as in
 * Claude Code): trusting one of them would trust everything under it. Paths are compared after
 * resolving symlinks. A file that cannot be read or parsed trusts nothing (the question is asked
 * again, the safe side) and is never overwritten: remembering then fails with an error naming it.
 */
import { readFileSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, parse } from "node:path";
import { goatHomeDir } from "../../settings/index.js";
import { writeFileAtomic } from "../../tools/index.js";

/** The trust file's shape. */
interface TrustFile {
  trustedFolders?: Record<string, { trustedAt?: string }>;
}

/** Where the trusted folders are kept. */
export function trustFilePath(env: Record<string, string | undefined>): string {
  return join(goatHomeDir(env), "trust.json");
}

/** `folder` with symlinks resolved (as given when it cannot be resolved). */
export function realFolder(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return folder;
  }
}

/** Whether `folder` (a real path) or a folder above it is trusted. */
export function isFolderTrusted(folder: string, env: Record<string, string | undefined>): boolean {
  let trusted: NonNullable<TrustFile["trustedFolders"]>;
  try {
    trusted = readTrustFile(trustFilePath(env)).trustedFolders ?? {};
  } catch {
    return false;
  }
  for (let at = folder; ; at = dirname(at)) {
    if (Object.hasOwn(trusted, at) && canRememberTrust(at)) return true;
    if (dirname(at) === at) return false;
  }
}

/** False for the home folder and the root of a file system, which are trusted for one session only. */
export function canRememberTrust(folder: string): boolean {
  return folder !== parse(folder).root && folder !== realFolder(homedir());
}

/**
 * Records `folder` (a real path) as trusted; resolves false for a folder that is never remembered.
 * Rejects when the trust file exists but is not a JSON object (left as it is) or cannot be written.
 */
export async function rememberTrustedFolder(
  folder: string,
  env: Record<string, string | undefined>,
  now: Date = new Date(),
): Promise<boolean> {
  if (!canRememberTrust(folder)) return false;
  const file = trustFilePath(env);
  const current = readTrustFile(file);
  const trustedFolders = { ...current.trustedFolders, [folder]: { trustedAt: now.toISOString() } };
  await writeFileAtomic(file, `${JSON.stringify({ ...current, trustedFolders }, null, 2)}\n`, {
    mkdirs: true,
    // Goat's home and its state are the user's only, whatever the umask.
    mode: 0o600,
    dirMode: 0o700,
  });
  return true;
}

/** The trust file's object (`{}` when there is none); throws when it is there but unusable. */
function readTrustFile(file: string): TrustFile {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not valid JSON (${(error as Error).message}); left unchanged`);
  }
  const folders = isObject(json) ? json.trustedFolders : undefined;
  if (!isObject(json) || (folders !== undefined && !isObject(folders))) {
    throw new Error(`${file} must hold {"trustedFolders": {…}}; left unchanged`);
  }
  return json as TrustFile;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
