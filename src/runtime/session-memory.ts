/**
 * The memory files of one `query()` session: read once at start for the system prompt, and a
 * tracker for the folder and path-scoped memory read later. Nothing is read, and no per-call work
 * added, when the session's `settingSources` (or Goat's preset) asks for no memory.
 */
import { loadMemory, memoryLevels } from "../settings/memory-files.js";
import type { MemoryFile } from "../settings/memory-imports.js";
import { NestedMemory } from "./nested-memory.js";
import type { SessionOptions } from "./options.js";

/** What a session reads into its prompt, and the tracker for files touched later. */
export interface SessionMemory {
  files: MemoryFile[];
  nested?: NestedMemory;
}

/** The session's memory, or undefined when it reads none. */
export function startSessionMemory(
  options: SessionOptions,
  cwd: string,
  env: Record<string, string | undefined>,
  warn: {
    /** Start-up problems: shown once the session has started. */
    atStart: (message: string) => void;
    /** Problems with memory read mid-session. */
    later: (message: string) => void;
  },
): SessionMemory | undefined {
  const preset = typeof options.systemPrompt === "object" && options.systemPrompt !== null;
  const levels = memoryLevels(options.memorySources ?? options.settingSources, preset);
  if (!levels) return undefined;
  if (!levels.user && !levels.project && !levels.local) return { files: [] };
  const seen = new Set<string>();
  const ctx = {
    cwd,
    env,
    levels,
    additionalDirectories: options.additionalDirectories,
    warn: warn.atStart,
    seen,
  };
  const loaded = loadMemory(ctx);
  const wantsNested = levels.project || levels.local;
  const nested = wantsNested
    ? new NestedMemory(cwd, levels, loaded.conditionalRules, {
        allowedRoots: [cwd, ...(options.additionalDirectories ?? [])],
        home: env.HOME,
        warn: warn.later,
        seen,
      })
    : undefined;
  return { files: loaded.files, nested };
}
