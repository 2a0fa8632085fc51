/**
 * The Glob tool (Claude Code's name and input): finds files by glob pattern under a directory, newest
 * first, capped at 100 with a note giving the total. Honours `.gitignore`, lists hidden files, skips
 * version-control directories, and does not follow symlinks below the search directory (see walk.ts).
 */
import { promises as fsp, lstatSync, statSync } from "node:fs";
import path from "node:path";
import { defineTool } from "./define-tool.js";
import { globMayBacktrack } from "./glob-risk.js";
import { picomatch } from "./lazy-packages.js";
import {
  DEFAULT_REGEX_TIME_LIMIT_MS,
  RegexTimeLimitError,
  regexTimeLimitFrom,
  runRegexTask,
} from "./regex-worker.js";
import { jsonSchema } from "./tool-schema.js";
import type { ToolResult } from "./types.js";
import { mapInSlices, walkFiles } from "./walk.js";

/** Most files Glob returns; the result says how many matched in total. */
const GLOB_RESULT_LIMIT = 100;

/** One file Glob found. */
interface GlobMatch {
  path: string;
  mtimeMs: number;
}

/** What a glob search found: the newest `limit` files and the total count. */
export interface GlobSearchResult {
  files: GlobMatch[];
  totalMatches: number;
  truncated: boolean;
}

/** Structured Glob output for programs (Claude Code's GlobOutput shape). */
export interface GlobDetails {
  filenames: string[];
  numFiles: number;
  totalMatches: number;
  truncated: boolean;
  durationMs: number;
}

/** Options of `globSearch`. */
export interface GlobSearchOptions {
  signal?: AbortSignal;
  /** Most files returned (default 100). */
  limit?: number;
  /** Time limit of matching a pattern that could backtrack badly, in the regex worker (default 30 s). */
  timeLimitMs?: number;
}

/**
 * Finds files under the absolute directory `dir` matching `pattern` (picomatch syntax, relative to
 * `dir`, or absolute), sorted newest first then by path. Throws if `dir` is not a directory.
 */
export async function globSearch(
  pattern: string,
  dir: string,
  options: GlobSearchOptions = {},
): Promise<GlobSearchResult> {
  const { root, glob } = splitPattern(pattern, dir);
  const limit = options.limit ?? GLOB_RESULT_LIMIT;
  // Without "**" a pattern cannot match deeper than it has segments: don't walk further.
  const maxDepth = glob.includes("**") || glob.includes("{") ? undefined : glob.split("/").length;
  if (!(await isDirectory(root)) || throughSymlinkBelow(dir, root)) {
    return { files: [], totalMatches: 0, truncated: false };
  }
  const found = globMayBacktrack(glob)
    ? await matchOffThread(glob, root, maxDepth, options)
    : await matchHere(glob, root, maxDepth, options.signal);
  // Stat only the matches, for their modification time; a file gone since the walk is dropped.
  const stamped = await mapInSlices(
    found,
    (file): GlobMatch | undefined => {
      const st = statSync(file, { throwIfNoEntry: false });
      return st ? { path: file, mtimeMs: st.mtimeMs } : undefined;
    },
    options.signal,
  );
  const files = stamped.filter((m): m is GlobMatch => m !== undefined);
  files.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files: files.slice(0, limit), totalMatches: files.length, truncated: files.length > limit };
}

/** Walks and matches on this thread: the usual case, a pattern cheap to match. */
async function matchHere(
  glob: string,
  root: string,
  maxDepth: number | undefined,
  signal: AbortSignal | undefined,
): Promise<string[]> {
  const matcher = picomatch()(glob, { dot: true });
  const found: string[] = [];
  await walkFiles(root, { signal, maxDepth }, (abs, rel) => {
    if (matcher(rel)) found.push(abs);
  });
  return found;
}

/**
 * Walks here, matches in the regex worker within the time limit: a pattern whose regular expression
 * could backtrack for minutes on a hostile file name (see glob-risk.ts).
 */
async function matchOffThread(
  glob: string,
  root: string,
  maxDepth: number | undefined,
  options: GlobSearchOptions,
): Promise<string[]> {
  const regex = picomatch().makeRe(glob, { dot: true });
  const absOf = new Map<string, string>();
  await walkFiles(root, { signal: options.signal, maxDepth }, (abs, rel) => {
    absOf.set(rel, abs);
  });
  if (absOf.size === 0) return [];
  const task = {
    kind: "filter" as const,
    lines: [...absOf.keys()],
    source: regex.source,
    flags: regex.flags,
  };
  const timeLimitMs = options.timeLimitMs ?? DEFAULT_REGEX_TIME_LIMIT_MS;
  const kept = (await runRegexTask(task, { timeLimitMs, signal: options.signal })) as string[];
  return kept.map((rel) => absOf.get(rel) as string);
}

/**
 * Moves a pattern's literal leading directories into the walk root ("src/**\/*.ts" walks only src), and
 * accepts absolute patterns.
 */
function splitPattern(pattern: string, dir: string): { root: string; glob: string } {
  const normalized = pattern.replace(/^\.\//, "");
  const scan = picomatch().scan(normalized);
  if (scan.glob === "") {
    // No glob characters: a literal path, matched in its own directory.
    return { root: path.resolve(dir, path.dirname(normalized)), glob: path.basename(normalized) };
  }
  return { root: path.resolve(dir, scan.base), glob: scan.glob };
}

/**
 * True when the pattern's literal prefix leads from `dir` down through a symlink (`link/**` with
 * `link` a symlink). The walk never follows links it meets below the search directory, so neither does
 * the prefix: otherwise `link/**` would list whatever the link points at, outside the allowed
 * directories, while the permission check saw only `dir`. A root outside `dir` (an absolute pattern,
 * or one climbing with `..`) is not a descent: the permission engine checks where it really is.
 */
function throughSymlinkBelow(dir: string, root: string): boolean {
  const rel = path.relative(dir, root);
  if (rel === "" || rel === ".." || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return false;
  let current = dir;
  for (const part of rel.split(path.sep)) {
    current = path.join(current, part);
    if (lstatSync(current, { throwIfNoEntry: false })?.isSymbolicLink()) return true;
  }
  return false;
}

async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await fsp.stat(p)).isDirectory();
  } catch {
    return false;
  }
}

const GLOB_DESCRIPTION = `- Fast file pattern matching tool that works with any codebase size
- Supports glob patterns like "**/*.js" or "src/**/*.ts"
- Returns matching file paths sorted by modification time (newest first), at most ${GLOB_RESULT_LIMIT}
- Respects .gitignore; hidden files are included
- Use this tool when you need to find files by name patterns
- You can call multiple tools in a single response. It is always better to speculatively perform multiple searches in parallel if they are potentially useful.`;

/** Glob input as the model sends it. */
export interface GlobInput {
  pattern: string;
  /** The directory to search; default the working directory. */
  path?: string;
}

const globInput = jsonSchema<GlobInput>(
  {
    type: "object",
    properties: {
      pattern: { type: "string", minLength: 1, description: "The glob pattern to match files against" },
      path: {
        description:
          'The directory to search in. If not specified, the current working directory will be used. IMPORTANT: Omit this field to use the default directory. DO NOT enter "undefined" or "null" - simply omit it for the default behavior. Must be a valid directory path if provided.',
        type: "string",
      },
    },
    required: ["pattern"],
  },
  { removeAdditional: true },
);

/** The Glob tool: `{pattern, path?}`, file paths newest first, capped at 100. */
export const globTool = defineTool<GlobInput, GlobDetails>({
  name: "Glob",
  description: GLOB_DESCRIPTION,
  inputSchema: globInput,
  sideEffect: "none",
  async execute(input, ctx): Promise<ToolResult<GlobDetails>> {
    const started = Date.now();
    const dir = input.path ?? ctx.cwd;
    if (!path.isAbsolute(dir)) {
      return { content: `path must be an absolute directory path, got "${dir}".`, isError: true };
    }
    const problem = await checkDirectory(dir);
    if (problem) return { content: problem, isError: true };
    let result: GlobSearchResult;
    try {
      const timeLimitMs = regexTimeLimitFrom(ctx.env ?? process.env);
      result = await globSearch(input.pattern, dir, { signal: ctx.signal, timeLimitMs });
    } catch (err) {
      if (!(err instanceof RegexTimeLimitError)) throw err;
      return {
        content: `Matching the pattern was stopped after ${err.limitMs} ms: it took too long. Many * in one path segment, or many ** segments, can take exponential time on long names. Use at most three * per segment, or narrow the search with path.`,
        isError: true,
      };
    }
    const filenames = result.files.map((f) => f.path);
    const details: GlobDetails = {
      filenames,
      numFiles: filenames.length,
      totalMatches: result.totalMatches,
      truncated: result.truncated,
      durationMs: Date.now() - started,
    };
    return { content: formatGlobResult(filenames, result.totalMatches), details };
  },
});

/** The text the model sees: one path per line, or "No files found", and a note when capped. */
function formatGlobResult(filenames: readonly string[], totalMatches: number): string {
  if (filenames.length === 0) return "No files found";
  const list = filenames.join("\n");
  if (totalMatches <= filenames.length) return list;
  return `${list}\n(Results are truncated: showing the ${filenames.length} most recently modified of ${totalMatches} matching files. Consider using a more specific path or pattern.)`;
}

async function checkDirectory(dir: string): Promise<string | undefined> {
  try {
    const st = await fsp.stat(dir);
    return st.isDirectory() ? undefined : `Path is not a directory: ${dir}. Pass a directory as path.`;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT")
      return `Directory does not exist: ${dir}. Check the path, or omit it to search the working directory.`;
    return `Cannot read directory ${dir}: ${(err as Error).message}`;
  }
}
