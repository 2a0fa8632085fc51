/**
 * Memory: the instruction files Claude Code reads into every session, read the same way here, each
 * file tagged with the level it was read for. They are read once per start into the project
 * description (`project-memory.ts`, when the options are applied) or, for options built without
 * one, at the session's start (`runtime/session-memory.ts`): which levels apply and where imports
 * may reach depend on the session's options (`memorySources`, `additionalDirectories`), known only
 * once settings are merged.
 * - user: `$CLAUDE_CONFIG_DIR/CLAUDE.md` (default `~/.claude/CLAUDE.md`) and its `rules/*.md`;
 * - project: `AGENTS.md`, `CLAUDE.md` and `.claude/CLAUDE.md` of the cwd and every parent, and the
 *   cwd's `.claude/rules/**\/*.md`;
 * - local: `CLAUDE.local.md` of the cwd and every parent.
 * Each with its `@path` imports (memory-imports.ts). A rule with `paths:` globs in its front matter,
 * and the CLAUDE.md files of folders below the cwd, are read only when the model touches a file
 * they cover (`runtime/nested-memory.ts`). Which levels apply follows `settingSources`.
 */
import { readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { claudeConfigDir } from "./claude-files.js";
import {
  type ImportScope,
  type MemoryFile,
  readMemoryText,
  readMemoryWithImports,
} from "./memory-imports.js";

/** The memory levels a session reads. */
export interface MemoryLevels {
  user: boolean;
  project: boolean;
  local: boolean;
}

/** The project memory files of one folder, in the order they are shown. */
export const PROJECT_MEMORY_NAMES: readonly string[] = [
  "AGENTS.md",
  "CLAUDE.md",
  join(".claude", "CLAUDE.md"),
];
/** The personal, not-committed memory file of a folder. */
export const LOCAL_MEMORY_NAME = "CLAUDE.local.md";

/**
 * The levels `settingSources` turns on (all off: the session reads none, not even for Goat's preset).
 * Without it, Goat's own coding prompt keeps reading the project's files (as it always has) and any
 * other prompt reads none, as in the Claude Agent SDK.
 */
export function memoryLevels(
  settingSources: readonly string[] | undefined,
  goatPreset: boolean,
): MemoryLevels | undefined {
  if (settingSources === undefined) {
    return goatPreset ? { user: false, project: true, local: false } : undefined;
  }
  return {
    user: settingSources.includes("user"),
    project: settingSources.includes("project"),
    local: settingSources.includes("local"),
  };
}

/** A `.claude/rules` file that applies only to the files its `paths:` globs match. */
export interface ConditionalRule {
  /** The rule file. */
  path: string;
  /** Globs relative to the folder holding `.claude/`. */
  globs: string[];
  /** The folder holding `.claude/`, which the globs are relative to. */
  base: string;
}

/** What the session reads at start, and the rules kept for later. */
export interface LoadedMemory {
  files: MemoryFile[];
  conditionalRules: ConditionalRule[];
}

/** Everything `loadMemory` needs to know about the session. */
export interface MemoryContext {
  cwd: string;
  env: Record<string, string | undefined>;
  levels: MemoryLevels;
  additionalDirectories?: readonly string[];
  warn: (message: string) => void;
  /** Files already shown; shared with the nested-memory tracker so each appears once. */
  seen: Set<string>;
}

/** Reads the memory files of the chosen levels, user first, then outermost folder to nearest. */
export function loadMemory(ctx: MemoryContext): LoadedMemory {
  const cwd = resolve(ctx.cwd);
  const projectRoots = [cwd, ...(ctx.additionalDirectories ?? []).map((d) => resolve(cwd, d))];
  const scope = (extraRoots: string[]): ImportScope => ({
    allowedRoots: [...projectRoots, ...extraRoots],
    home: ctx.env.HOME,
    warn: ctx.warn,
    seen: ctx.seen,
  });
  const files: MemoryFile[] = [];
  const conditionalRules: ConditionalRule[] = [];
  // Each file read from here on is of `level` (its imports too).
  const levelFrom = (level: NonNullable<MemoryFile["level"]>, from: number) => {
    for (const file of files.slice(from)) file.level = level;
  };
  if (ctx.levels.user) {
    const userDir = claudeConfigDir(ctx.env);
    files.push(...readMemoryWithImports(join(userDir, "CLAUDE.md"), scope([userDir])));
    readRules(join(userDir, "rules"), userDir, files, conditionalRules, scope([userDir]));
    levelFrom("user", 0);
  }
  for (const dir of foldersDownTo(cwd)) {
    const names = [
      ...(ctx.levels.project ? PROJECT_MEMORY_NAMES : []),
      ...(ctx.levels.local ? [LOCAL_MEMORY_NAME] : []),
    ];
    for (const name of names) {
      const from = files.length;
      files.push(...readMemoryWithImports(join(dir, name), scope([])));
      levelFrom(name === LOCAL_MEMORY_NAME ? "local" : "project", from);
    }
  }
  if (ctx.levels.project) {
    const from = files.length;
    readRules(join(cwd, ".claude", "rules"), cwd, files, conditionalRules, scope([]));
    levelFrom("project", from);
  }
  return { files, conditionalRules };
}

/** The filesystem root, then each folder down to `cwd`. */
function foldersDownTo(cwd: string): string[] {
  const dirs: string[] = [];
  for (let dir = cwd; ; dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dirname(dir) === dir) return dirs;
  }
}

/** `rules/**\/*.md`: those without `paths:` join the files now, the others wait for a matching file. */
function readRules(
  rulesDir: string,
  base: string,
  files: MemoryFile[],
  conditional: ConditionalRule[],
  scope: ImportScope,
): void {
  let names: string[];
  try {
    names = (readdirSync(rulesDir, { recursive: true }) as string[]).filter((n) => n.endsWith(".md")).sort();
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(rulesDir, name);
    const text = readMemoryText(path);
    if (text === undefined) continue;
    const globs = pathsOf(text);
    if (globs.length > 0) conditional.push({ path, globs, base });
    else files.push(...readMemoryWithImports(path, scope, text));
  }
}

/** The `paths:` globs of a rule's front matter: a list (`- "src/**"`) or one comma-separated line. */
function pathsOf(text: string): string[] {
  const front = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1];
  if (!front) return [];
  const lines = front.split(/\r?\n/);
  const at = lines.findIndex((l) => /^paths\s*:/.test(l));
  if (at < 0) return [];
  const unquote = (s: string) => s.trim().replace(/^["']|["']$/g, "");
  const inline = lines[at].replace(/^paths\s*:/, "").trim();
  if (inline !== "") {
    return inline
      .replace(/^\[|\]$/g, "")
      .split(",")
      .map(unquote)
      .filter(Boolean);
  }
  const globs: string[] = [];
  for (const line of lines.slice(at + 1)) {
    const item = /^\s*-\s*(.+)$/.exec(line);
    if (!item) break;
    globs.push(unquote(item[1]));
  }
  return globs.filter(Boolean);
}

/** The memory files as a prompt section, or undefined when there are none. */
export function memorySection(files: readonly MemoryFile[]): string | undefined {
  if (files.length === 0) return undefined;
  return [
    "# Project instructions",
    "The user's instructions for this project follow, from the outermost folder to the nearest; nearer ones take precedence.",
    ...files.flatMap((f) => ["", memoryHeading(f), "", f.content]),
  ].join("\n");
}

/** A file's heading: its path, and which file imported it. */
export function memoryHeading(file: MemoryFile): string {
  return file.importedBy ? `## ${file.path} (imported by ${file.importedBy})` : `## ${file.path}`;
}
