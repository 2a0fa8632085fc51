/**
 * Runs before each test file (vitest `setupFiles`), in the file's own context even though the files
 * of a worker share one process: hooks registered here apply to every file, where a hook in a shared
 * helper module would apply to the first file that loaded it only.
 */
import { afterEach } from "vitest";
import { removeTempDirs } from "./support/temp-dirs.js";

afterEach(removeTempDirs);
