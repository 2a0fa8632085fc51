/**
 * Atomic file replacement for Write and Edit: the new content goes to a temp file in the same
 * directory, is flushed, and is renamed over the target, so a crash or a full disk never leaves half
 * a file. The old file's mode (and owner, when we may set it) carries over.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";

/** Options for `writeFileAtomic`. */
export interface AtomicWriteOptions {
  /** Checked just before the rename: an aborted call leaves the target untouched. */
  signal?: AbortSignal;
  /** Creates missing parent directories first. */
  mkdirs?: boolean;
  /** The mode of a new file (default 0o666, narrowed by the umask); an existing file keeps its own. */
  mode?: number;
  /** The mode of the directories `mkdirs` creates (default 0o777, narrowed by the umask). */
  dirMode?: number;
}

/**
 * Replaces `target` (a resolved real path) with `data` atomically and returns the new file's stats.
 * The temp file is removed on any failure.
 */
export async function writeFileAtomic(
  target: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<import("node:fs").Stats> {
  const dir = path.dirname(target);
  if (options.mkdirs) await fs.mkdir(dir, { recursive: true, mode: options.dirMode ?? 0o777 });
  const previous = await fs.stat(target).catch(() => undefined);
  const temp = path.join(
    dir,
    `.${path.basename(target)}.goat-${process.pid}-${randomBytes(6).toString("hex")}.tmp`,
  );
  const handle = await fs.open(temp, "wx", previous ? previous.mode & 0o7777 : (options.mode ?? 0o666));
  let renamed = false;
  try {
    await handle.writeFile(data);
    if (previous) {
      // The open() mode is masked by umask; set the old mode exactly so an executable stays executable.
      await handle.chmod(previous.mode & 0o7777);
      await keepOwner(handle, previous);
    }
    await handle.sync();
    await handle.close();
    options.signal?.throwIfAborted();
    await fs.rename(temp, target);
    renamed = true;
    return await fs.stat(target);
  } finally {
    if (!renamed) {
      await handle.close().catch(() => {});
      await fs.rm(temp, { force: true });
    }
  }
}

async function keepOwner(handle: fs.FileHandle, previous: import("node:fs").Stats): Promise<void> {
  const uid = process.getuid?.();
  if (uid === undefined || (previous.uid === uid && previous.gid === process.getgid?.())) return;
  try {
    await handle.chown(previous.uid, previous.gid);
  } catch (err) {
    // Only root may give a file away; anyone else keeps the file as theirs, which is what `cp` does too.
    if ((err as NodeJS.ErrnoException).code !== "EPERM") throw err;
  }
}
