/**
 * The tool contract: what a tool declares, what it receives when it runs, and what it returns.
 */

import type { ImageBlock, TextBlock } from "../llm/types.js";
import type { ConfinementLevel } from "../sandbox/confinement.js";
import type { StandardSchemaV1 } from "../schema/standard-schema.js";

/**
 * How a tool touches the world, which decides what may run at the same time:
 * - `none`: pure reads of local state (Read, Glob, Grep); any number run concurrently.
 * - `read`: reads the outside world (a web fetch); runs concurrently with other reads.
 * - `mutating`: changes something (Bash, Write, Edit); waits for the calls before it and holds the
 *   calls after it, unless both name different `resourceKey`s.
 */
export type SideEffect = "none" | "read" | "mutating";

/** Content a tool returns: plain text, or text and image blocks. */
export type ToolContent = string | Array<TextBlock | ImageBlock>;

/** What a tool returns. `details` are for programs (UIs, tests) and never reach the model. */
export interface ToolResult<TDetails = unknown> {
  content: ToolContent;
  isError?: boolean;
  details?: TDetails;
}

/** What the session keeps about a file the model has read, for read-before-write checks. */
export interface FileSnapshot {
  mtimeMs: number;
  size: number;
}

/**
 * Per-session state the core tools share: the files read (so Write and Edit can refuse to overwrite
 * a file the model has not seen or that changed since), and background shells. Lives in the session,
 * never in a global, so two sessions in one process never see each other.
 */
export interface ToolSessionState {
  readFiles: Map<string, FileSnapshot>;
  /** Background shells keyed by id; owned by the Bash tool family. */
  backgroundShells: Map<string, unknown>;
  /** Running calls the host may move to the background, by tool_use id (`foreground-tasks.ts`). */
  foregroundTasks?: Map<string, () => string | undefined>;
  /** Called when the session ends: kills background shells, removes temp files. */
  cleanups: Array<() => void | Promise<void>>;
}

/**
 * Where file tools may go on the permission check's word, as it stands when Read, Write, Edit or
 * NotebookEdit opens its file. The check resolved the path's symbolic links; a path that still goes
 * through a link must land here, or the link may have been changed since (`write-target.ts`).
 */
export interface FileScope {
  /** The allowed directories (real paths): the working directory and the additional ones. */
  directories: readonly string[];
  /** Why writing this real path needs the user's own word (a protected file), or undefined. */
  protectedReason?: (realPath: string) => string | undefined;
}

/** What a running tool receives besides its input. */
export interface ToolContext {
  /** Aborted when the run is interrupted: stop work and return promptly. */
  signal: AbortSignal;
  /** The session's working directory. */
  cwd: string;
  sessionId: string;
  /** The id of the tool_use block being answered. */
  toolUseId: string;
  /** Shared per-session state (read-before-write, background shells). */
  state: ToolSessionState;
  /**
   * The session's environment (`query()`'s `env`): commands a tool runs get it, and settings it reads
   * come from it. Absent when a tool is called outside a session; tools then use `process.env`.
   */
  env?: Record<string, string | undefined>;
  /**
   * True when the call's output will be shown in Claude Code's shape (`query()`'s `tool_use_result`, a
   * PostToolUse hook's `tool_response`): the built-in tools then add to `details` what Claude Code's
   * tool output carries (a file's text before the change, a command's stdout, a partial read's line
   * count), which they otherwise leave out to keep results small.
   */
  fullDetails?: boolean;
  /**
   * Set when the permission engine allowed this call on its own analysis, without a rule or the
   * user's answer: a tool that runs commands runs them confined at this level where a sandbox can
   * start (`read-only`: nothing may change; `workspace`: only the allowed directories).
   */
  confinement?: ConfinementLevel;
  /**
   * The session's file scope, read when a file tool opens a path that goes through a symbolic link.
   * Absent outside a session; undefined when file tools are not confined (bypassPermissions).
   */
  fileScope?: () => FileScope | undefined;
  /** Streams partial progress (the loop's `tool_execution_update` event); shown to the user, not the model. */
  onUpdate: (partial: string) => void;
}

/** A tool the model can call. Made with `defineTool`. */
export interface Tool<TInput = any, TDetails = unknown> {
  readonly name: string;
  readonly description: string;
  /**
   * Validates the model's input (a Standard Schema: zod, valibot, arktype, or Goat's JSON Schema
   * validator); `execute` receives what it outputs.
   */
  readonly inputSchema: StandardSchemaV1<unknown, TInput>;
  /** JSON Schema for the model (derived once, at definition time). */
  readonly jsonSchema: Record<string, unknown>;
  readonly sideEffect: SideEffect;
  /**
   * For mutating tools: the resource this call touches (e.g. an absolute file path). Two mutating
   * calls with different keys may run together. Absent means "may touch anything".
   */
  resourceKey?(input: TInput, ctx: { cwd: string }): string | undefined;
  /**
   * How long one call may run before its signal is aborted and the model gets a time-limit error
   * (0: no limit). Unset, a custom or MCP tool gets the session's `toolTimeoutMs` (10 minutes by
   * default) and a built-in tool its own rules (Bash has its `timeout` parameter).
   */
  readonly timeoutMs?: number;
  /**
   * True when the tool runs a call confined as `ToolContext.confinement` asks (Goat's Bash made with a
   * `confinement`). The permission engine lets a Bash line through on its own analysis only to a tool
   * that does; a Bash tool of the host's own that does not say so is asked about instead, since what
   * runs without asking must run confined where a sandbox exists.
   */
  readonly confines?: boolean;
  /** Runs the tool. May throw: the caller turns a throw into an `isError` result. */
  execute(input: TInput, ctx: ToolContext): Promise<ToolResult<TDetails>>;
}

/** Creates an empty per-session tool state. */
export function createToolSessionState(): ToolSessionState {
  return { readFiles: new Map(), backgroundShells: new Map(), cleanups: [] };
}

/** Runs and clears the session's tool cleanups (kills background shells). Never throws. */
export async function disposeToolSessionState(state: ToolSessionState): Promise<void> {
  const cleanups = state.cleanups.splice(0);
  await Promise.allSettled(cleanups.map(async (fn) => fn()));
}
