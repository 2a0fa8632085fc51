/**
 * The code that runs inside the regex worker (see regex-worker.ts): the built-in Grep's per-file search
 * and BashOutput's line filter, i.e. every place a model-supplied JavaScript regular expression meets
 * text of unbounded size.
 *
 * `regexWorkerMain` is sent to the worker as source text (`Function.prototype.toString`), so it must be
 * self-contained: it may use only its parameters and what it declares inside, never an import or a
 * module-level name (the bundler would rename those, and the worker has none of them). Types are fine:
 * they are erased before the text is taken.
 */
import type * as FsModule from "node:fs";
import type { MessagePort } from "node:worker_threads";
import type { GrepLine, GrepMode } from "./grep-format.js";

/** Search these files for one regular expression, as the built-in Grep does. */
interface SearchTask {
  kind: "search";
  files: string[];
  source: string;
  flags: string;
  multiline: boolean;
  mode: GrepMode;
  before: number;
  after: number;
}

/** One file's findings; `undefined` when it has none, is binary or could not be read. */
export type FileHits = { lines: GrepLine[]; count: number } | undefined;

/** Keep the lines that match a regular expression (BashOutput's `filter`). */
interface FilterTask {
  kind: "filter";
  lines: string[];
  source: string;
  flags: string;
}

/** What the worker is asked to do: one task per worker. */
export type RegexTask = SearchTask | FilterTask;

/** The worker's answer: the search's hits (index-aligned with `files`), or the kept lines. */
export type RegexTaskResult = FileHits[] | string[];

/** Runs in the worker: answers the one task it is sent. Self-contained; see the module comment. */
export function regexWorkerMain(port: MessagePort, fs: typeof FsModule): void {
  port.once("message", (task: RegexTask) => {
    port.postMessage(task.kind === "search" ? searchFiles(task) : filterLines(task));
  });

  function filterLines(task: FilterTask): string[] {
    const regex = new RegExp(task.source, task.flags);
    return task.lines.filter((line) => {
      regex.lastIndex = 0;
      return regex.test(line);
    });
  }

  function searchFiles(task: SearchTask): FileHits[] {
    const regex = new RegExp(task.source, task.flags);
    return task.files.map((file) => {
      let buf: Buffer;
      try {
        buf = fs.readFileSync(file);
      } catch {
        return undefined; // unreadable or vanished: skipped, as ripgrep does
      }
      if (buf.includes(0)) return undefined; // binary
      return searchText(buf.toString("utf8"), regex, task);
    });
  }

  /** Finds matches in one file's text. Without multiline, a match never crosses a line, as in ripgrep. */
  function searchText(text: string, regex: RegExp, task: SearchTask): FileHits {
    regex.lastIndex = 0;
    // Cheap whole-file test first: most files don't match. With "m" it is a superset of per-line matches.
    if (!regex.test(text)) return undefined;
    const lines = text.split("\n");
    if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
    const matched = task.multiline ? multilineMatches(text, regex) : lineMatches(lines, regex);
    if (matched.count === 0) return undefined;
    if (task.mode !== "content") return { lines: [], count: matched.count };
    return { lines: withContext(lines, matched.lines, task.before, task.after), count: matched.count };
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
}
