/**
 * The memory files of one start as the project description holds them: the files of the levels a
 * session reads (memory-files.ts: `~/.claude/CLAUDE.md`, `CLAUDE.md` and its kin of the cwd and its
 * parents, `CLAUDE.local.md`, `.claude/rules`), each with its level and its `@path` imports resolved
 * inside the folders the session may use, and what could not be read, naming the file.
 *
 * Which levels apply and where an import may reach come from the session's merged options
 * (`memorySources`/`settingSources`, `additionalDirectories`), so this is read once those are known,
 * and it records what it was read for: a session whose own folder, levels or directories differ
 * (a host changed them later) reads its own instead of using a read made for other roots.
 */
import { resolve } from "node:path";
import { claudeConfigDir } from "./claude-files.js";
import { type ConditionalRule, loadMemory, type MemoryLevels } from "./memory-files.js";
import type { MemoryFile } from "./memory-imports.js";

/** What a memory read depends on. */
export interface MemoryRequest {
  cwd: string;
  /** Where `$CLAUDE_CONFIG_DIR` and `$HOME` are read (the user's memory, `~/` imports). */
  env: Record<string, string | undefined>;
  levels: MemoryLevels;
  /** Folders an import may read beside the cwd (relative ones from the cwd). */
  additionalDirectories?: readonly string[];
}

/** The memory of a start, read once. */
export interface ProjectMemory {
  /** What it was read for (`memoryReadFor`). */
  readFor: string;
  /** The files read at start, user first, then outermost folder to nearest, each with its level. */
  files: MemoryFile[];
  /** The `.claude/rules` files with `paths:` globs, read when a file they match is touched. */
  conditionalRules: ConditionalRule[];
  /** What could not be read (a missing import, one outside the allowed folders), naming the file. */
  warnings: string[];
  /** The files shown, by real path; a session's nested memory starts from a copy, so each shows once. */
  seen: ReadonlySet<string>;
}

/** Reads the memory files the request asks for. Never throws: problems are its warnings. */
export function readProjectMemory(request: MemoryRequest): ProjectMemory {
  const warnings: string[] = [];
  const seen = new Set<string>();
  const loaded = loadMemory({
    cwd: request.cwd,
    env: request.env,
    levels: request.levels,
    additionalDirectories: request.additionalDirectories,
    warn: (message) => warnings.push(message),
    seen,
  });
  return { readFor: memoryReadFor(request), ...loaded, warnings, seen };
}

/**
 * Everything a memory read depends on, as one comparable string: the folder, the levels, the
 * allowed directories (resolved) and the user's folders.
 */
export function memoryReadFor(request: MemoryRequest): string {
  const cwd = resolve(request.cwd);
  return JSON.stringify([
    cwd,
    request.levels.user,
    request.levels.project,
    request.levels.local,
    (request.additionalDirectories ?? []).map((d) => resolve(cwd, d)),
    request.env.HOME ?? null,
    claudeConfigDir(request.env),
  ]);
}
