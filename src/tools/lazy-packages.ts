/**
 * The CommonJS packages the tools and the permission rules use (picomatch, ignore), loaded on first
 * use. Why: a static import of a CommonJS package from an ES module makes Node start its CommonJS
 * loader and scan the package for its export names at `import("goat-agent")`, before any query runs;
 * with these two it was about a fifth of the library's import time (bench/import.mjs). A query that
 * matches a glob pays it once, then the module cache answers.
 */
import { createRequire } from "node:module";
import type ignoreFactory from "ignore";
import type picomatchFactory from "picomatch";

const requireFromHere = createRequire(import.meta.url);
let picomatchModule: typeof picomatchFactory | undefined;
let ignoreModule: typeof ignoreFactory | undefined;

/** picomatch (glob matching), loaded on the first call. */
export function picomatch(): typeof picomatchFactory {
  picomatchModule ??= requireFromHere("picomatch") as typeof picomatchFactory;
  return picomatchModule;
}

/** ignore (`.gitignore` rules), loaded on the first call. */
export function ignore(): typeof ignoreFactory {
  ignoreModule ??= requireFromHere("ignore") as typeof ignoreFactory;
  return ignoreModule;
}
