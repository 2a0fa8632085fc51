/**
 * The ripgrep Grep backend: runs `rg` (found on PATH) with arguments, never through a shell, and parses
 * its NUL-separated output into raw findings for the shared formatter. Exit code 1 means no matches;
 * 2 with a message is an error the model gets back (a bad regex, an unknown type); 2 without one means
 * some files could not be read, and what was found is still returned.
 */
import { spawn } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";
import type { GrepLine, GrepQuery, GrepRaw } from "./grep-format.js";
import { VCS_DIRS } from "./walk.js";

/** Output ripgrep may produce before we stop it: past this the search is too broad to be useful. */
const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

/** Finds the `rg` executable on PATH, or undefined when ripgrep is not installed. */
export function findRipgrep(envPath: string | undefined = process.env.PATH): string | undefined {
  for (const dir of (envPath ?? "").split(path.delimiter)) {
    if (dir === "") continue;
    const candidate = path.join(dir, process.platform === "win32" ? "rg.exe" : "rg");
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The ripgrep arguments for a query: same ignore rules and file set as the built-in search. */
function ripgrepArgs(q: GrepQuery): string[] {
  const args = [
    "--no-config",
    "--hidden",
    // No --follow: a symlink met while walking is not followed (see walk.ts for why), so a link in the
    // working directory cannot carry the search outside the allowed directories.
    // Honour .gitignore files only, inside or outside a git repository, like the built-in walker.
    "--no-require-git",
    "--no-ignore-global",
    "--no-ignore-exclude",
    "--no-ignore-dot",
    "--no-messages",
    "--color=never",
    "--no-heading",
    "--with-filename",
    "--null",
  ];
  for (const dir of VCS_DIRS) args.push("--glob", `!${dir}`);
  if (q.multiline) args.push("-U", "--multiline-dotall");
  if (q.ignoreCase) args.push("-i");
  if (q.mode === "files_with_matches") args.push("--files-with-matches");
  else if (q.mode === "count") args.push("--count");
  else {
    args.push("--line-number");
    if (q.before > 0) args.push("-B", String(q.before));
    if (q.after > 0) args.push("-A", String(q.after));
  }
  if (q.type) args.push("--type", q.type);
  for (const glob of q.globs) args.push("--glob", glob);
  args.push("-e", q.pattern, "--", q.path);
  return args;
}

/** Runs ripgrep at `rgPath` for the query. Rejects on abort or on an error ripgrep reports. */
export async function ripgrepSearch(q: GrepQuery, rgPath: string): Promise<GrepRaw> {
  // ripgrep matches --glob patterns with a "/" against the path relative to its working directory.
  const isDir = statSync(q.path, { throwIfNoEntry: false })?.isDirectory() ?? false;
  const cwd = isDir ? q.path : path.dirname(q.path);
  const { code, stdout, stderr } = await run(rgPath, ripgrepArgs(q), cwd, q.signal);
  if (code === 2 && stderr.trim() !== "") throw new Error(describeError(stderr.trim(), q.pattern));
  if (code !== 0 && code !== 1 && code !== 2)
    throw new Error(`ripgrep failed (exit ${code}): ${stderr.trim()}`);
  return parseOutput(q, stdout);
}

/** Parses `--null` output: `path\0N:text` (match), `path\0N-text` (context), `--`, `path\0count`, `path\0`. */
function parseOutput(q: GrepQuery, stdout: string): GrepRaw {
  if (q.mode === "files_with_matches") {
    return { mode: q.mode, files: stdout.split("\0").filter((p) => p.replace(/^\n/, "") !== "") };
  }
  const rows = stdout.split("\n");
  if (q.mode === "count") {
    const counts: Array<{ path: string; count: number }> = [];
    for (const row of rows) {
      const nul = row.indexOf("\0");
      if (nul > 0) counts.push({ path: row.slice(0, nul), count: Number(row.slice(nul + 1)) });
    }
    return { mode: q.mode, counts };
  }
  const byFile = new Map<string, GrepLine[]>();
  for (const row of rows) {
    const nul = row.indexOf("\0");
    if (nul <= 0) continue; // "--" separators: the formatter recomputes them from line numbers
    const m = /^(\d+)([:-])/.exec(row.slice(nul + 1, nul + 24));
    if (!m) continue;
    const file = row.slice(0, nul);
    let text = row.slice(nul + 1 + m[0].length);
    if (text.endsWith("\r")) text = text.slice(0, -1);
    let lines = byFile.get(file);
    if (!lines) {
      lines = [];
      byFile.set(file, lines);
    }
    lines.push({ n: Number(m[1]), text, match: m[2] === ":" });
  }
  return { mode: "content", files: [...byFile].map(([file, lines]) => ({ path: file, lines })) };
}

function describeError(stderr: string, pattern: string): string {
  if (/regex parse error|error parsing/i.test(stderr)) {
    return `Invalid regular expression /${pattern}/: ${stderr.replace(/^regex parse error:\s*/i, "")}`;
  }
  return `ripgrep: ${stderr}`;
}

function run(
  cmd: string,
  args: string[],
  cwd: string,
  signal: AbortSignal | undefined,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const child = spawn(cmd, args, { cwd, stdio: ["ignore", "pipe", "pipe"], signal });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    let overflow = false;
    child.stdout.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_OUTPUT_BYTES) {
        overflow = true;
        child.kill("SIGKILL");
        return;
      }
      out.push(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", (e) => reject(signal?.aborted ? (signal.reason ?? e) : e));
    child.on("close", (code) => {
      if (signal?.aborted) return reject(signal.reason);
      if (overflow) {
        return reject(
          new Error(
            "The search produced too much output. Narrow it with path, glob, type or a more specific pattern.",
          ),
        );
      }
      resolve({
        code: code ?? 2,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      });
    });
  });
}
