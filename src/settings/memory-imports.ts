/**
 * `@path` imports in memory files (CLAUDE.md and its kin), as Claude Code reads them: a word
 * starting with `@` that names a file, relative to the importing file (`~/` is the home folder),
 * brings that file in after the one importing it, up to five hops deep. Text inside code spans and
 * fenced code blocks is not scanned, so an example of the syntax stays an example.
 *
 * A memory file is hostile input like any other: an import may only read inside the folders the
 * session may use (the project, its additional directories, the importing file's own folder, and
 * Claude's user folder for user memory). Anything else keeps its literal text and is one warning,
 * never read; a missing file is one warning naming it and the line.
 */
import { readFileSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";

/** How many hops of `@` imports are followed from a memory file, as in Claude Code. */
const MAX_IMPORT_DEPTH = 5;

/** Largest memory file read whole; longer ones are cut so one huge file cannot flood the prompt. */
const MAX_MEMORY_CHARS = 40_000;

/** One memory file's text as the model gets it. */
export interface MemoryFile {
  /** The file, as found (an import as written, resolved; not through symbolic links). */
  path: string;
  /** Its text, trimmed at the end, cut when huge. */
  content: string;
  /** The file whose `@path` brought this one in. */
  importedBy?: string;
  /** The memory level it was read for (an import has its importer's); set by `loadMemory`. */
  level?: "user" | "project" | "local";
}

/** What an import may read, and where the problems go. */
export interface ImportScope {
  /** Folders an import may read under (checked after symbolic links are resolved). */
  allowedRoots: readonly string[];
  home?: string;
  warn: (message: string) => void;
  /** Files already shown this session: each appears once. */
  seen: Set<string>;
}

/**
 * Reads `path` and, after it, the files it imports (depth first). Returns nothing when the file is
 * missing, empty or already shown. `content`: the file's text when the caller has read it already
 * (`readMemoryText`), so it is not opened twice.
 */
export function readMemoryWithImports(
  path: string,
  scope: ImportScope,
  content: string | undefined = readMemoryText(path),
): MemoryFile[] {
  if (content === undefined) return [];
  const roots = [...scope.allowedRoots, dirname(path)];
  return withImports({ path, content }, 0, { ...scope, allowedRoots: roots });
}

/** The file's text (cut when huge), or undefined when missing or blank. */
export function readMemoryText(path: string): string | undefined {
  let content: string;
  try {
    content = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  if (content.trim() === "") return undefined;
  if (content.length > MAX_MEMORY_CHARS) {
    content = `${content.slice(0, MAX_MEMORY_CHARS)}\n[… cut: the file has ${content.length} characters]`;
  }
  return content.trimEnd();
}

function withImports(file: MemoryFile, depth: number, scope: ImportScope): MemoryFile[] {
  const key = realOrSelf(file.path);
  if (scope.seen.has(key)) return [];
  scope.seen.add(key);
  const out: MemoryFile[] = [file];
  for (const ref of findImports(file.content)) {
    const where = `${file.path}:${ref.line}`;
    const target = resolveImport(ref.path, file.path, scope.home);
    if (depth + 1 > MAX_IMPORT_DEPTH) {
      scope.warn(`${where}: @${ref.path} not imported: imports go at most ${MAX_IMPORT_DEPTH} levels deep`);
      continue;
    }
    const real = realOrUndefined(target);
    if (real === undefined) {
      scope.warn(`${where}: @${ref.path} not imported: ${target} does not exist`);
      continue;
    }
    if (!scope.allowedRoots.some((root) => isInside(real, realOrSelf(root)))) {
      scope.warn(
        `${where}: @${ref.path} not imported: ${target} is outside the project and its allowed directories`,
      );
      continue;
    }
    const content = readMemoryText(real);
    if (content === undefined) continue;
    out.push(...withImports({ path: target, content, importedBy: file.path }, depth + 1, scope));
  }
  return out;
}

/** An `@path` reference and the 1-based line it is on. */
interface ImportRef {
  path: string;
  line: number;
}

/**
 * The `@path` words of `text` outside code. A word counts as a path only when it looks like one
 * (has a `/` or a `.`, or starts with `~`), so "@alice" in prose is not a missing import.
 */
function findImports(text: string): ImportRef[] {
  const refs: ImportRef[] = [];
  let fence: string | undefined;
  text.split("\n").forEach((raw, index) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(raw)?.[1];
    if (marker && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      return;
    }
    if (fence !== undefined) return;
    const line = raw.replace(/(`+)[^`]*?\1/g, " ");
    for (const m of line.matchAll(/(?:^|\s)@([^\s`]+)/g)) {
      const path = m[1].replace(/[),;:!?]+$/, "").replace(/\.$/, "");
      if (/[/.]/.test(path) || path.startsWith("~")) refs.push({ path, line: index + 1 });
    }
  });
  return refs;
}

function resolveImport(ref: string, from: string, home = homedir()): string {
  if (ref === "~" || ref.startsWith("~/")) return join(home, ref.slice(1));
  return isAbsolute(ref) ? ref : resolve(dirname(from), ref);
}

function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function realOrSelf(path: string): string {
  return realOrUndefined(path) ?? resolve(path);
}
