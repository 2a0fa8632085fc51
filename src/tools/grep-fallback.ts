/**
 * The built-in Grep backend, for machines without ripgrep: the shared walker (honouring .gitignore),
 * ripgrep-style glob and type filters, JavaScript regular expressions, binary files skipped. It returns
 * the same raw findings as the ripgrep backend, so the model sees identical output.
 */
import { promises as fsp, readFileSync } from "node:fs";
import { makePathFilter } from "./grep-filters.js";
import type { GrepLine, GrepQuery, GrepRaw } from "./grep-format.js";
import { mapInSlices, walkFiles } from "./walk.js";

/** One file's findings. */
interface FileHits {
  lines: GrepLine[];
  count: number;
}

/** Searches like ripgrep would, with the built-in walker and JavaScript regular expressions. */
export async function builtinSearch(q: GrepQuery): Promise<GrepRaw> {
  const regex = compilePattern(q.pattern, q.ignoreCase, q.multiline);
  const files = await listFiles(q);
  const hits = await mapInSlices(
    files,
    (file) => {
      let buf: Buffer;
      try {
        buf = readFileSync(file);
      } catch {
        return undefined; // unreadable or vanished: skipped, as ripgrep does
      }
      if (buf.includes(0)) return undefined; // binary
      return searchText(buf.toString("utf8"), regex, q);
    },
    q.signal,
  );
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
export function compilePattern(pattern: string, ignoreCase: boolean, multiline: boolean): RegExp {
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

/** Finds matches in one file's text. Without multiline, a match never crosses a line, as in ripgrep. */
function searchText(text: string, regex: RegExp, q: GrepQuery): FileHits | undefined {
  regex.lastIndex = 0;
  // Cheap whole-file test first: most files don't match. With "m" it is a superset of per-line matches.
  if (!regex.test(text)) return undefined;
  const lines = text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const matched = q.multiline ? multilineMatches(text, regex) : lineMatches(lines, regex);
  if (matched.count === 0) return undefined;
  if (q.mode !== "content") return { lines: [], count: matched.count };
  return { lines: withContext(lines, matched.lines, q.before, q.after), count: matched.count };
}

function lineMatches(lines: string[], regex: RegExp): { lines: Set<number>; count: number } {
  // Per line, without "m": "^" and "$" anchor at the line's own ends, and "\r" stays part of the line.
  const single = new RegExp(regex.source, regex.flags.replace(/[gm]/g, ""));
  const hit = new Set<number>();
  for (let i = 0; i < lines.length; i++) if (single.test(lines[i])) hit.add(i);
  return { lines: hit, count: hit.size };
}

/** Every line a match touches is a matching line; the count is of distinct lines where matches start. */
function multilineMatches(text: string, regex: RegExp): { lines: Set<number>; count: number } {
  const starts: number[] = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  const lineOf = (offset: number): number => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const hit = new Set<number>();
  const startLines = new Set<number>();
  regex.lastIndex = 0;
  for (let m = regex.exec(text); m !== null; m = regex.exec(text)) {
    const first = lineOf(m.index);
    const end = m[0].length > 0 ? m.index + m[0].length - 1 : m.index;
    const last = lineOf(end);
    startLines.add(first);
    for (let l = first; l <= last; l++) hit.add(l);
    if (m[0].length === 0) regex.lastIndex++;
  }
  return { lines: hit, count: startLines.size };
}

function withContext(lines: string[], matched: Set<number>, before: number, after: number): GrepLine[] {
  const shown = new Map<number, boolean>();
  for (const i of [...matched].sort((a, b) => a - b)) {
    for (let j = Math.max(0, i - before); j <= Math.min(lines.length - 1, i + after); j++) {
      if (!shown.has(j)) shown.set(j, false);
    }
    shown.set(i, true);
  }
  return [...shown].map(([i, match]) => {
    let text = lines[i];
    if (text.endsWith("\r")) text = text.slice(0, -1);
    return { n: i + 1, text, match };
  });
}
