/**
 * Goat's own files are private to the user who runs it: transcripts, listing indexes, spilled command
 * output and the debug log hold whatever a session read (source, command output, secrets among them).
 * Folders Goat makes are 0700 and files 0600, set in the `mkdir`/`open` call itself, so there is no
 * moment when another user could open them (the umask only ever narrows a mode). A folder that already
 * exists keeps its mode: Goat does not change what the user set, it says once that others can read it.
 */
import { mkdir, stat } from "node:fs/promises";

/** The mode of every folder Goat creates for its own files: the user only. */
const PRIVATE_DIR_MODE = 0o700;
/** The mode of every file Goat creates for its own data: the user only. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Folders already looked at by this process. The one process-wide state here, and on purpose: a
 * warning about the user's folder is worth saying once per process, not once per session, and a
 * folder checked once is never stat'ed again, so a process running thousands of sessions pays nothing.
 */
const checkedFolders = new Set<string>();

/**
 * Creates `dir` and its missing parents 0700, then checks each of `watched` (folders on the way to it
 * that Goat owns, such as `~/.goat`): one that group or others may enter or read is reported through
 * `warn`, once per process.
 */
export async function ensurePrivateDir(
  dir: string,
  watched: readonly string[],
  warn: (message: string) => void,
): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  // Windows has no mode bits to check (its ACLs make a user's profile private by default).
  if (process.platform === "win32") return;
  for (const folder of watched) {
    if (checkedFolders.has(folder)) continue;
    checkedFolders.add(folder);
    const mode = await stat(folder).then(
      (s) => s.mode,
      () => undefined,
    );
    if (mode !== undefined && (mode & 0o077) !== 0) warn(sharedFolderMessage(folder, mode));
  }
}

/** The one-line warning for a folder of Goat's that other users can read. */
function sharedFolderMessage(folder: string, mode: number): string {
  const octal = (mode & 0o777).toString(8).padStart(3, "0");
  return `${folder} is open to other users (mode ${octal}) and holds Goat's transcripts: run chmod 700 ${JSON.stringify(folder)} to keep them private`;
}
