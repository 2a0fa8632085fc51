/**
 * The memory files of one `query()` session: read once at start for the system prompt, and a
 * tracker for the folder and path-scoped memory read later. Nothing is read, and no per-call work
 * added, when the session's `settingSources` (or Goat's preset) asks for no memory.
 *
 * When the options were built from a project description (`project-options.ts`), the memory was
 * read into it then, and the session shows that read instead of opening the files again: the
 * `goat` command and `query()`'s `settingSources` open each memory file once per start.
 */
import { memoryLevels } from "../settings/memory-files.js";
import type { MemoryFile } from "../settings/memory-imports.js";
import {
  type MemoryRequest,
  memoryReadFor,
  type ProjectMemory,
  readProjectMemory,
} from "../settings/project-memory.js";
import { NestedMemory } from "./nested-memory.js";
import type { SessionOptions } from "./options.js";

/** What a session reads into its prompt, and the tracker for files touched later. */
export interface SessionMemory {
  files: MemoryFile[];
  nested?: NestedMemory;
}

/**
 * Where options carry the memory read with their project description. A symbol, not an option:
 * it is no part of `query()`'s options (whose check lists only named keys), and spreading the
 * options, as each step that adds to them does, keeps it.
 */
const PRE_READ_MEMORY = Symbol("goat.preReadMemory");

/** The memory read with the description, and whether a session has shown it already. */
interface PreReadMemory {
  memory: ProjectMemory;
  taken: boolean;
}

type WithPreReadMemory = { [PRE_READ_MEMORY]?: PreReadMemory };

/**
 * What the session's memory read depends on, or undefined when it reads none: the levels of
 * `memorySources` (else `settingSources`, else Goat's preset), the folder, the allowed directories.
 */
export function sessionMemoryRequest(
  options: SessionOptions,
  cwd: string,
  env: Record<string, string | undefined>,
): MemoryRequest | undefined {
  const preset = typeof options.systemPrompt === "object" && options.systemPrompt !== null;
  const levels = memoryLevels(options.memorySources ?? options.settingSources, preset);
  if (!levels) return undefined;
  return { cwd, env, levels, additionalDirectories: options.additionalDirectories };
}

/** The options carrying `memory` for the first session started from them (or a copy of them). */
export function withPreReadMemory<Options extends SessionOptions>(
  options: Options,
  memory: ProjectMemory,
): Options {
  const out: Options & WithPreReadMemory = { ...options };
  out[PRE_READ_MEMORY] = { memory, taken: false };
  return out;
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
  const request = sessionMemoryRequest(options, cwd, env);
  if (!request) return undefined;
  const { levels } = request;
  if (!levels.user && !levels.project && !levels.local) return { files: [] };
  const loaded = takePreRead(options, request) ?? readProjectMemory(request);
  for (const message of loaded.warnings) warn.atStart(message);
  // The tracker marks what it shows: its own set, so the description's read stays as it was.
  const seen = new Set(loaded.seen);
  const wantsNested = levels.project || levels.local;
  const nested = wantsNested
    ? new NestedMemory(cwd, levels, loaded.conditionalRules, {
        allowedRoots: [cwd, ...(options.additionalDirectories ?? [])],
        home: env.HOME,
        warn: warn.later,
        seen,
      })
    : undefined;
  return { files: [...loaded.files], nested };
}

/**
 * The memory read with the options' description, when it was read for what this session reads and
 * no session has shown it yet: a later session from the same options (after `/clear`, say) reads
 * the files as they are then, as it always has.
 */
function takePreRead(options: SessionOptions, request: MemoryRequest): ProjectMemory | undefined {
  const preRead = (options as WithPreReadMemory)[PRE_READ_MEMORY];
  if (!preRead || preRead.taken || preRead.memory.readFor !== memoryReadFor(request)) return undefined;
  preRead.taken = true;
  return preRead.memory;
}
