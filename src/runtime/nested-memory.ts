/**
 * Memory that applies only to part of the project, read when the model first touches a file there
 * (as Claude Code does): the `CLAUDE.md` (and `.claude/CLAUDE.md`, `AGENTS.md`, `CLAUDE.local.md`
 * with the local level) of folders below the cwd, and `.claude/rules` files whose `paths:` globs
 * match. Each is shown once, as Goat's own reminder beside the tool results (never inside a tool's
 * output, where a file's text could imitate it).
 */
import { realpathSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import type { AfterToolCallOutcome, ToolCallInfo } from "../loop/loop-config.js";
import {
  type ConditionalRule,
  LOCAL_MEMORY_NAME,
  type MemoryLevels,
  memoryHeading,
  PROJECT_MEMORY_NAMES,
} from "../settings/memory-files.js";
import { type ImportScope, type MemoryFile, readMemoryWithImports } from "../settings/memory-imports.js";
import { picomatch } from "../tools/lazy-packages.js";
import type { ToolResult } from "../tools/types.js";

/** The tools whose `file_path` (or `notebook_path`) counts as touching a file. */
const FILE_TOOLS: ReadonlySet<string> = new Set(["Read", "Edit", "MultiEdit", "Write", "NotebookEdit"]);

/** Tracks what was shown and finds the memory a newly touched file brings in. */
export class NestedMemory {
  private readonly cwd: string;
  private readonly matchers = new Map<ConditionalRule, (path: string) => boolean>();
  /** Folders already looked in: each is looked in once, so a later touch costs no file reads. */
  private readonly checkedFolders = new Set<string>();
  private realCwd?: string;

  constructor(
    cwd: string,
    private readonly levels: MemoryLevels,
    private readonly rules: ConditionalRule[],
    private readonly scope: ImportScope,
  ) {
    this.cwd = resolve(cwd);
  }

  /** The reminder text for the memory `file` brings in that was not shown yet, if any. */
  onFileTouched(file: string): string | undefined {
    const path = resolve(this.cwd, file);
    const found = [...this.folderMemory(path), ...this.ruleMemory(path)];
    if (found.length === 0) return undefined;
    return [
      `Instructions that apply to ${path}, from the project's memory files; follow them for files there.`,
      ...found.flatMap((f) => ["", memoryHeading(f), "", f.content]),
    ].join("\n");
  }

  /** The memory files of the folders between the cwd (not included: read at start) and the file. */
  private folderMemory(path: string): MemoryFile[] {
    const rel = relative(this.cwd, dirname(path));
    if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return [];
    const names = [
      ...(this.levels.project ? PROJECT_MEMORY_NAMES : []),
      ...(this.levels.local ? [LOCAL_MEMORY_NAME] : []),
    ];
    const out: MemoryFile[] = [];
    let dir = this.cwd;
    for (const part of rel.split(/[\\/]/)) {
      dir = join(dir, part);
      if (this.checkedFolders.has(dir)) continue;
      this.checkedFolders.add(dir);
      // A folder linked from outside the project is not the project's: its files are not read.
      if (!this.isInsideCwd(dir)) break;
      for (const name of names) out.push(...readMemoryWithImports(join(dir, name), this.scope));
    }
    return out;
  }

  private isInsideCwd(dir: string): boolean {
    try {
      this.realCwd ??= realpathSync(this.cwd);
      const rel = relative(this.realCwd, realpathSync(dir));
      return !rel.startsWith("..") && !isAbsolute(rel);
    } catch {
      return false;
    }
  }

  private ruleMemory(path: string): MemoryFile[] {
    const out: MemoryFile[] = [];
    for (const rule of this.rules) {
      const rel = relative(rule.base, path);
      if (rel.startsWith("..") || isAbsolute(rel) || !this.matcher(rule)(rel)) continue;
      out.push(...readMemoryWithImports(rule.path, this.scope));
    }
    return out;
  }

  private matcher(rule: ConditionalRule): (path: string) => boolean {
    let match = this.matchers.get(rule);
    if (!match) {
      match = picomatch()(rule.globs, { dot: true });
      this.matchers.set(rule, match);
    }
    return match;
  }
}

/** The touched file of a call to a file tool, if any. */
function touchedFile(info: ToolCallInfo): string | undefined {
  if (!FILE_TOOLS.has(info.call.name)) return undefined;
  const path = info.input.file_path ?? info.input.notebook_path;
  return typeof path === "string" && path !== "" ? path : undefined;
}

type AfterToolCall = (
  info: ToolCallInfo & { result: ToolResult; isError: boolean },
) => Promise<AfterToolCallOutcome>;

/** `after` with the nested memory a successful file-tool call brings in added as context. */
export function withNestedMemory(after: AfterToolCall, memory: NestedMemory): AfterToolCall {
  return async (info) => {
    const outcome = await after(info);
    const file = info.isError ? undefined : touchedFile(info);
    const text = file === undefined ? undefined : memory.onFileTouched(file);
    if (text === undefined) return outcome;
    const context = outcome.additionalContext ? `${outcome.additionalContext}\n\n${text}` : text;
    return { ...outcome, additionalContext: context };
  };
}
