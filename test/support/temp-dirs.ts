/**
 * Temporary directories a test makes, removed after that test: `tempDir()` records each one and
 * test/setup-each-file.ts removes them after every test.
 *
 * The removal is registered by the setup file, not by this module: vitest runs the files of a worker
 * in one process (`isolate: false`), so a hook registered when a shared module is first loaded
 * belongs to the first file that loaded it only. That was the case here, and every later file's
 * directories were left in the system's temp folder (about 300 per run).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const made: string[] = [];

/** A fresh temporary directory (real path), removed after the test. */
export function tempDir(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/** Removes every directory `tempDir()` made since the last call. */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}
