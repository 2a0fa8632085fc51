/**
 * esbuild bundles that test child processes run instead of their hundreds of modules (the MCP fixture
 * servers' runtime, the DBOS test worker): the same code, loaded from one file. Each is built once per
 * key (what it is made from: file contents, package versions) into node_modules/.cache/goat-tests,
 * written aside and then renamed so that parallel vitest workers never read half a file, and building
 * a new one removes that bundle's earlier builds (and the files kept beside them, such as a code cache).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { type BuildOptions, buildSync } from "esbuild";

/** The repository root. */
const ROOT = resolve(import.meta.dirname, "../..");
/**
 * One cache folder per checkout: git worktrees may share one node_modules, and a build in one would
 * remove the bundle a test run in another is using.
 */
const CACHE = join(
  ROOT,
  "node_modules/.cache/goat-tests",
  createHash("sha256").update(ROOT).digest("hex").slice(0, 12),
);

/** The installed version of a package of the repository. */
export function installedVersion(name: string): string {
  return JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")).version;
}

/**
 * The path of bundle `name` for `key` (`name-<hash of key><extension>`), built with `options` (esbuild,
 * `bundle` and `outfile` set here) when it is not there yet.
 */
export function cachedBundle(
  name: string,
  extension: ".mjs" | ".cjs",
  key: ReadonlyArray<string | Buffer>,
  options: Omit<BuildOptions, "bundle" | "outfile">,
): string {
  const hash = createHash("sha256");
  for (const part of key) hash.update(part);
  const file = join(CACHE, `${name}-${hash.digest("hex").slice(0, 16)}${extension}`);
  if (existsSync(file)) return file;
  mkdirSync(CACHE, { recursive: true });
  const aside = `${file}.${process.pid}.tmp`;
  buildSync({ absWorkingDir: ROOT, logLevel: "error", ...options, bundle: true, outfile: aside });
  renameSync(aside, file);
  for (const other of readdirSync(CACHE)) {
    const path = join(CACHE, other);
    if (other.startsWith(`${name}-`) && !path.startsWith(file)) rmSync(path, { force: true });
  }
  return file;
}
