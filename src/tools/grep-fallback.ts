/**
 * The built-in Grep backend, for machines without ripgrep: the shared walker (honouring .gitignore),
 * ripgrep-style glob and type filters, JavaScript regular expressions, binary files skipped. It returns
 * the same raw findings as the ripgrep backend, so the model sees identical output.
 */
import { promises as fsp } from "node:fs";
import { globMayBacktrack } from "./glob-risk.js";
import { makePathFilter } from "./grep-filters.js";
import type { GrepQuery, GrepRaw } from "./grep-format.js";
import { DEFAULT_REGEX_TIME_LIMIT_MS, runRegexTask } from "./regex-worker.js";
import type { FileHits } from "./regex-worker-main.js";
import { walkFiles } from "./walk.js";

/**
 * Searches like ripgrep would, with the built-in walker and JavaScript regular expressions. The files
 * are read and matched in a worker thread (regex-worker.ts), so a catastrophic pattern never freezes
 * this thread, and the search ends with `RegexTimeLimitError` after `timeLimitMs`.
 */
export async function builtinSearch(
  q: GrepQuery,
  timeLimitMs: number = DEFAULT_REGEX_TIME_LIMIT_MS,
): Promise<GrepRaw> {
  const regex = compilePattern(q.pattern, q.ignoreCase, q.multiline);
  // The walk applies globs on this thread, file by file; one that could backtrack for minutes is refused.
  const risky = q.globs.find((g) => globMayBacktrack(g.replace(/^!/, "")));
  if (risky !== undefined) {
    throw new Error(
      `The glob "${risky}" could take exponential time to match (more than three * in one path segment, many ** segments, or an extglob group). Simplify it, or search without glob and narrow with path.`,
    );
  }
  const files = await listFiles(q);
  const task = {
    kind: "search" as const,
    files,
    source: regex.source,
    flags: regex.flags,
    multiline: q.multiline,
    mode: q.mode,
    before: q.before,
    after: q.after,
  };
  const hits =
    files.length === 0 ? [] : ((await runRegexTask(task, { timeLimitMs, signal: q.signal })) as FileHits[]);
  const found = files.flatMap((file, i) => {
    const h = hits[i];
    return h && h.count > 0 ? [{ path: file, hits: h }] : [];
  });
  if (q.mode === "files_with_matches") return { mode: q.mode, files: found.map((f) => f.path) };
  if (q.mode === "count")
    return { mode: q.mode, counts: found.map((f) => ({ path: f.path, count: f.hits.count })) };
  return { mode: q.mode, files: found.map((f) => ({ path: f.path, lines: f.hits.lines })) };
}

async function listFiles(q: GrepQuery): Promise<string[]> {
  const st = await fsp.stat(q.path).catch(() => undefined);
  if (!st) throw new Error(`Path does not exist: ${q.path}`);
  if (!st.isDirectory()) return [q.path]; // an explicit file is searched whatever the filters say
  const filter = makePathFilter(q.globs, q.type);
  const files: string[] = [];
  await walkFiles(q.path, { signal: q.signal, filter }, (abs) => files.push(abs));
  return files;
}

/**
 * Compiles a ripgrep-style pattern as a JavaScript RegExp (global, multiline anchors, Unicode when the
 * pattern allows). Translates the Rust-only spellings models use: `(?P<name>`, leading `(?i)`/`(?s)`.
 */
function compilePattern(pattern: string, ignoreCase: boolean, multiline: boolean): RegExp {
  let source = pattern.replace(/\(\?P</g, "(?<");
  let flags = "gm";
  if (ignoreCase) flags += "i";
  if (multiline) flags += "s";
  const inline = /^\(\?([ims]+)\)/.exec(source);
  if (inline) {
    source = source.slice(inline[0].length);
    for (const f of inline[1]) if (!flags.includes(f)) flags += f;
  }
  try {
    return new RegExp(source, `${flags}u`);
  } catch {
    try {
      return new RegExp(source, flags);
    } catch (err) {
      const detail = (err as Error).message.replace(/^Invalid regular expression: /, "");
      throw new Error(`Invalid regular expression /${pattern}/: ${detail}`);
    }
  }
}
