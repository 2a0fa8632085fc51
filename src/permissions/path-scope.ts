/**
 * The directory scope of file tools: which paths a call touches, resolved (`~`, `..`, symlinks) before
 * any check so no spelling of a path escapes, and whether they lie inside the working directory or an
 * additional directory. Bash is not path-checked here; its commands are judged by rules and modes.
 */
import path from "node:path";
import { picomatch } from "../tools/lazy-packages.js";
import { expandHome, resolveToolPath, toAbsolutePath } from "../tools/paths.js";
import { type ResolvedPath, resolveLikeKernel } from "./kernel-path.js";
import { DEFAULTS_TO_CWD, FILE_EDIT_TOOLS, FILE_READ_TOOLS } from "./tool-kinds.js";

export type { ResolvedPath } from "./kernel-path.js";

/**
 * Resolves a path the model gave, relative to `cwd`, into both forms. A path with a `..` component is
 * walked the way the kernel does (kernel-path): Grep and Glob hand it on as written, and to the kernel
 * `dirlink/..` is the parent of dirlink's target, not the directory holding dirlink.
 */
function resolvePath(filePath: string, cwd: string): ResolvedPath {
  const lexical = toAbsolutePath(filePath, cwd);
  const expanded = expandHome(filePath);
  if (expanded.split(/[\\/]/).includes("..")) return { lexical, real: resolveLikeKernel(expanded, cwd).real };
  return { lexical, real: resolveToolPath(filePath, cwd) };
}

/** True when `target` is `dir` or inside it (both absolute). */
export function isInsideDir(target: string, dir: string): boolean {
  const rel = path.relative(dir, target);
  return rel === "" || (!rel.startsWith(`..${path.sep}`) && rel !== ".." && !path.isAbsolute(rel));
}

/**
 * The paths a file tool's call touches, or `undefined` for tools that take no path (Bash, WebFetch…).
 * A Glob pattern that is absolute or climbs with `..` adds the directory it really searches.
 */
export function toolPaths(
  toolName: string,
  input: Record<string, unknown>,
  cwd: string,
): ResolvedPath[] | undefined {
  const field = FILE_READ_TOOLS[toolName] ?? FILE_EDIT_TOOLS[toolName];
  if (field === undefined) return undefined;
  const raw = input[field];
  const given = typeof raw === "string" && raw !== "" ? raw : undefined;
  // Read/Write without a path never passes input validation; nothing to check then.
  const base = given ?? (DEFAULTS_TO_CWD.has(toolName) ? cwd : "");
  if (base === "") return [];
  const paths = [resolvePath(base, cwd)];
  const pattern = input.pattern;
  if (toolName === "Glob" && typeof pattern === "string") {
    const scan = picomatch().scan(pattern);
    if (path.isAbsolute(scan.base) || scan.base.startsWith("~") || scan.base.split(/[\\/]/).includes("..")) {
      // The pattern is relative to the search root, except `~/…`, which names the home directory.
      const searchBase = scan.base.startsWith("~") ? scan.base : path.resolve(paths[0].lexical, scan.base);
      paths.push(resolvePath(searchBase, cwd));
    }
  }
  return paths;
}

/** The first path whose real location is outside every scope directory (real paths), if any. */
export function firstOutsideScope(paths: ResolvedPath[], scopeDirs: readonly string[]): string | undefined {
  return paths.find((p) => !scopeDirs.some((dir) => isInsideDir(p.real, dir)))?.real;
}
