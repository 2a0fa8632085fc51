/**
 * What a Grep backend (ripgrep or the built-in search) returns, and the one formatter both go through,
 * so the model sees the same text whichever backend ran: Claude Code's shapes ("Found N files" and
 * paths newest first; `path:line:text` content lines; `path:count` counts), with head_limit/offset
 * pagination and very long lines cut.
 */
import { statSync } from "node:fs";
import { mapInSlices } from "./walk.js";

/** Grep's output modes (Claude Code's `output_mode`). */
export type GrepMode = "content" | "files_with_matches" | "count";

/** A search, already resolved: absolute path, globs split, context counts settled. */
export interface GrepQuery {
  pattern: string;
  /** Absolute file or directory to search. */
  path: string;
  /** `--glob` patterns; a leading "!" excludes. */
  globs: string[];
  type?: string;
  mode: GrepMode;
  ignoreCase: boolean;
  /** Context lines before and after each match (content mode). */
  before: number;
  after: number;
  multiline: boolean;
  signal?: AbortSignal;
}

/** One output line of content mode: a matching line or a context line. */
export interface GrepLine {
  n: number;
  text: string;
  match: boolean;
}

/** A backend's raw findings, in any order (the formatter sorts). */
export type GrepRaw =
  | { mode: "files_with_matches"; files: string[] }
  | { mode: "count"; counts: Array<{ path: string; count: number }> }
  | { mode: "content"; files: Array<{ path: string; lines: GrepLine[] }> };

/** Structured Grep output for programs (Claude Code's GrepOutput shape). */
export interface GrepDetails {
  mode: GrepMode;
  numFiles: number;
  filenames: string[];
  content?: string;
  numLines?: number;
  numMatches?: number;
  appliedLimit?: number;
  appliedOffset?: number;
  backend: "rg" | "builtin";
}

/** Longest line shown in content mode; the rest is replaced by a note. */
const MAX_LINE_CHARS = 500;

/** Default head_limit, as in Claude Code; 0 means no limit. */
export const DEFAULT_HEAD_LIMIT = 250;

/** How to paginate and present. */
export interface FormatOptions {
  showLineNumbers: boolean;
  headLimit: number;
  offset: number;
  /** Context was asked for: groups are separated by "--", as ripgrep does. */
  withContext: boolean;
  backend: "rg" | "builtin";
}

/** Formats raw findings into the model's text and the structured details. */
export async function formatGrep(
  raw: GrepRaw,
  opts: FormatOptions,
): Promise<{ text: string; details: GrepDetails }> {
  if (raw.mode === "files_with_matches") {
    const sorted = await sortByMtime(raw.files);
    const { items, appliedLimit } = paginate(sorted, opts);
    const details = base(raw.mode, opts, appliedLimit, { numFiles: items.length, filenames: items });
    if (items.length === 0) return { text: "No files found", details };
    const info = limitInfo(appliedLimit, opts.offset);
    const noun = items.length === 1 ? "file" : "files";
    return { text: `Found ${items.length} ${noun}${info ? ` ${info}` : ""}\n${items.join("\n")}`, details };
  }
  if (raw.mode === "count") {
    const sorted = [...raw.counts].sort((a, b) => compare(a.path, b.path));
    const { items, appliedLimit } = paginate(sorted, opts);
    const content = items.map((c) => `${c.path}:${c.count}`).join("\n");
    const numMatches = items.reduce((sum, c) => sum + c.count, 0);
    const details = base(raw.mode, opts, appliedLimit, {
      numFiles: items.length,
      filenames: [],
      content,
      numMatches,
    });
    const info = limitInfo(appliedLimit, opts.offset);
    const occ = numMatches === 1 ? "occurrence" : "occurrences";
    const files = items.length === 1 ? "file" : "files";
    const summary = `Found ${numMatches} total ${occ} across ${items.length} ${files}.${info ? ` with pagination = ${info}` : ""}`;
    return { text: `${content || "No matches found"}\n\n${summary}`, details };
  }
  const lines = contentLines(raw.files, opts);
  const { items, appliedLimit } = paginate(lines, opts);
  const content = items.join("\n");
  const details = base(raw.mode, opts, appliedLimit, {
    numFiles: 0,
    filenames: [],
    content,
    numLines: items.length,
  });
  const info = limitInfo(appliedLimit, opts.offset);
  const text = content || "No matches found";
  return { text: info ? `${text}\n\n[Showing results with pagination = ${info}]` : text, details };
}

/** Cuts a line longer than MAX_LINE_CHARS, saying how much was left out. */
function cutLine(text: string): string {
  if (text.length <= MAX_LINE_CHARS) return text;
  return `${text.slice(0, MAX_LINE_CHARS)} [... ${text.length - MAX_LINE_CHARS} more characters]`;
}

function contentLines(files: Array<{ path: string; lines: GrepLine[] }>, opts: FormatOptions): string[] {
  const out: string[] = [];
  const sorted = [...files].sort((a, b) => compare(a.path, b.path));
  for (const file of sorted) {
    let prev = -1;
    for (const line of [...file.lines].sort((a, b) => a.n - b.n)) {
      if (line.n === prev) continue;
      if (opts.withContext && out.length > 0 && line.n !== prev + 1) out.push("--");
      const sep = line.match ? ":" : "-";
      const num = opts.showLineNumbers ? `${line.n}${sep}` : "";
      out.push(`${file.path}${sep}${num}${cutLine(line.text)}`);
      prev = line.n;
    }
  }
  return out;
}

/** Skips `offset` entries and keeps `headLimit` (0 = all); reports the limit only when it cut something. */
function paginate<T>(items: T[], opts: FormatOptions): { items: T[]; appliedLimit?: number } {
  if (opts.headLimit === 0) return { items: items.slice(opts.offset) };
  const sliced = items.slice(opts.offset, opts.offset + opts.headLimit);
  const cut = items.length - opts.offset > opts.headLimit;
  return { items: sliced, appliedLimit: cut ? opts.headLimit : undefined };
}

function limitInfo(appliedLimit: number | undefined, offset: number): string {
  const parts: string[] = [];
  if (appliedLimit !== undefined) parts.push(`limit: ${appliedLimit}`);
  if (offset > 0) parts.push(`offset: ${offset}`);
  return parts.join(", ");
}

function base(
  mode: GrepMode,
  opts: FormatOptions,
  appliedLimit: number | undefined,
  rest: Omit<GrepDetails, "mode" | "backend">,
): GrepDetails {
  const details: GrepDetails = { mode, backend: opts.backend, ...rest };
  if (appliedLimit !== undefined) details.appliedLimit = appliedLimit;
  if (opts.offset > 0) details.appliedOffset = opts.offset;
  return details;
}

/** Newest first, then by path, like Claude Code; files gone since the search sort last. */
async function sortByMtime(files: string[]): Promise<string[]> {
  const stamped = await mapInSlices(files, (file) => ({
    file,
    mtime: statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0,
  }));
  stamped.sort((a, b) => b.mtime - a.mtime || compare(a.file, b.file));
  return stamped.map((s) => s.file);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
