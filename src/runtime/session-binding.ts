/**
 * Binds a run to its session transcript: opens a new session or resumes, continues or forks one,
 * then appends every message the moment it joins the history, each compaction as a boundary, and
 * each run's result. With `persistSession: false` the same code writes to memory only.
 */
import { randomUUID } from "node:crypto";
import type { AssistantMessage, Usage, UserMessage } from "../llm/types.js";
import type { AgentMessage } from "../loop/events.js";
import { forkSession, loadResumeState, mostRecentSession } from "../session/api.js";
import { createJsonlSessionStore } from "../session/jsonl-store.js";
import { createInMemorySessionStore } from "../session/memory-store.js";
import { sessionFilePath } from "../session/paths.js";
import { createSessionRecorder, type SessionRecorder } from "../session/recorder.js";
import type { SessionStore, SessionWarning } from "../session/types.js";
import { GOAT_VERSION } from "../version.js";

/** What the runtime needs to open a session. */
export interface SessionBindingOptions {
  cwd: string;
  model: string;
  /** Id for a new session (or a fork). */
  sessionId?: string;
  resume?: string;
  continue?: boolean;
  forkSession?: boolean;
  resumeSessionAt?: string;
  persistSession?: boolean;
  sessionStore?: SessionStore;
  goatHome?: string;
  /**
   * Prices a model answer; each assistant entry records its cost (`cost_usd`) with the same function
   * the run's totals use, so transcripts, listings, the viewer and the result agree.
   */
  costOf?: (model: string, usage: Usage) => number;
  /**
   * The session's warning channel, for what the default store reports (a torn transcript line, a
   * store folder other users can read); without it the store uses `process.emitWarning`.
   */
  onWarning?: (message: string) => void;
}

/** An open session transcript. */
export interface SessionBinding {
  sessionId: string;
  /** The history to start from (empty for a new session). */
  messages: AgentMessage[];
  /** True when an earlier session was loaded. */
  resumed: boolean;
  /** The cost of the runs the loaded transcript records (0 for a new session). */
  priorCostUsd: number;
  /** Where the transcript is written ("" when not persisted). */
  transcriptPath: string;
  /** Appends a message as soon as it joins the history. */
  recordMessage(message: AgentMessage): void;
  /**
   * The uuid of the transcript entry that holds `message` (recorded earlier with `recordMessage`):
   * what `resumeSessionAt` takes. Undefined when the session is not recorded.
   */
  entryUuid(message: AgentMessage): string | undefined;
  /** Records a compaction: the boundary, then the kept messages again, so a resume loads only these. */
  recordCompaction(info: {
    trigger: "manual" | "auto";
    preTokens: number;
    postTokens: number;
    summary: string;
    kept: AgentMessage[];
  }): void;
  recordModelChange(model: string): void;
  recordResult(result: RunRecord): void;
  /** Resolves once everything recorded so far is stored. */
  flush(): Promise<void>;
  /** Waits for every write; reports a failed write once. */
  close(): Promise<void>;
}

/** What the transcript keeps of a finished run. */
export interface RunRecord {
  /** `success` or an `error_*` kind (the SDK result's `subtype`). */
  subtype: string;
  numTurns: number;
  /** The run's own cost, not the session's. */
  runCostUsd: number;
  usage: Usage;
  durationMs: number;
  /** Why a failed run failed (the SDK result's `errors`), kept so a viewer can say it. */
  errors?: string[];
}

/** Opens (or resumes, continues, forks) the session's transcript. */
export async function openSession(options: SessionBindingOptions): Promise<SessionBinding> {
  const persist = options.persistSession !== false;
  const store =
    options.sessionStore ??
    (persist
      ? createJsonlSessionStore({ home: options.goatHome, onWarning: storeWarnings(options.onWarning) })
      : createInMemorySessionStore());
  let resumeId = options.resume;
  if (!resumeId && options.continue) resumeId = (await mostRecentSession(options.cwd, store))?.sessionId;

  let sessionId = options.sessionId ?? randomUUID();
  let messages: AgentMessage[] = [];
  let parentUuid: string | undefined;
  let priorCostUsd = 0;
  let needsHeader = true;
  if (resumeId) {
    if (options.forkSession) {
      const forked = await forkSession(resumeId, {
        store,
        newSessionId: sessionId,
        upTo: options.resumeSessionAt,
      });
      sessionId = forked.sessionId;
      const state = await loadResumeState(sessionId, { store });
      messages = state.messages;
      parentUuid = state.lastUuid;
      priorCostUsd = state.totalCostUsd;
    } else {
      const state = await loadResumeState(resumeId, { store, resumeAt: options.resumeSessionAt });
      sessionId = resumeId;
      messages = state.messages;
      parentUuid = state.lastUuid;
      priorCostUsd = state.totalCostUsd;
    }
    needsHeader = false;
  }

  if (!persist && !options.sessionStore)
    return memoryOnlyBinding(sessionId, messages, resumeId !== undefined, priorCostUsd);
  const recorder: SessionRecorder = createSessionRecorder({ store, sessionId, parentUuid });
  // Which entry holds each message, so a compaction can name the messages it kept.
  const uuids = new WeakMap<AgentMessage, string>();
  // A new session's header waits for its first entry: a session left before its first prompt
  // leaves no transcript (as in Claude Code), so no empty session is listed or offered to resume.
  let header: Parameters<SessionRecorder["record"]>[0] | undefined = needsHeader
    ? {
        type: "header",
        cwd: options.cwd,
        model: options.model,
        version: GOAT_VERSION,
        createdAt: new Date().toISOString(),
      }
    : undefined;
  const headerFirst = () => {
    if (header === undefined) return;
    void recorder.record(header).catch(() => {});
    header = undefined;
  };
  const record = (payload: Parameters<SessionRecorder["record"]>[0]) => {
    headerFirst();
    return recorder.record(payload).catch(() => {});
  };
  // What the call that produced an answer cost, priced as the run's totals are (not on copies).
  const callCost = (message: AssistantMessage): { cost_usd?: number } => {
    if (options.costOf === undefined || message.usage === undefined) return {};
    return { cost_usd: options.costOf(message.model ?? options.model, message.usage) };
  };
  const recordMessage = (message: AgentMessage, copyOf?: string) => {
    if (message.role === "custom") return;
    const payload =
      message.role === "assistant"
        ? {
            type: "assistant" as const,
            message: message as AssistantMessage,
            ...(copyOf ? { copy_of: copyOf } : callCost(message as AssistantMessage)),
          }
        : { type: "user" as const, message: message as UserMessage, ...(copyOf ? { copy_of: copyOf } : {}) };
    headerFirst();
    // No promise per message: a failed write surfaces in flush() (the persist barrier) and close().
    uuids.set(message, recorder.add(payload).uuid);
  };

  return {
    sessionId,
    messages,
    resumed: resumeId !== undefined,
    priorCostUsd,
    transcriptPath: "home" in store ? sessionFilePath(String(store.home), options.cwd, sessionId) : "",
    recordMessage: (message) => recordMessage(message),
    entryUuid: (message) => uuids.get(message),
    recordCompaction(info) {
      void record({
        type: "compact_boundary",
        trigger: info.trigger,
        pre_tokens: info.preTokens,
        post_tokens: info.postTokens,
        summary: info.summary,
        kept_uuids: info.kept.map((m) => uuids.get(m)).filter((u): u is string => u !== undefined),
      });
      for (const message of info.kept) recordMessage(message, uuids.get(message));
    },
    recordModelChange: (model) => void record({ type: "model_change", model }),
    recordResult(result) {
      void record({
        type: "result",
        subtype: result.subtype,
        num_turns: result.numTurns,
        // The run's own cost: entries are summed to get a session's total (resume, session lists).
        total_cost_usd: result.runCostUsd,
        usage: result.usage,
        duration_ms: result.durationMs,
        ...(result.errors?.length ? { errors: result.errors } : {}),
      });
    },
    flush: () => recorder.flush(),
    async close() {
      try {
        await recorder.flush();
      } finally {
        await (store as { close?: () => void | Promise<void> }).close?.();
      }
    },
  };
}

/**
 * With `persistSession: false` and no store of the user's, nothing would ever read the transcript:
 * recording it (a uuid, a timestamp and a JSON copy per message) would be pure per-turn cost.
 */
function memoryOnlyBinding(
  sessionId: string,
  messages: AgentMessage[],
  resumed: boolean,
  priorCostUsd: number,
): SessionBinding {
  const nothing = () => {};
  return {
    sessionId,
    messages,
    resumed,
    priorCostUsd,
    transcriptPath: "",
    recordMessage: nothing,
    entryUuid: () => undefined,
    recordCompaction: nothing,
    recordModelChange: nothing,
    recordResult: nothing,
    flush: async () => {},
    close: async () => {},
  };
}

/** The store's warnings as one line each for the session's channel, or undefined for the store's default. */
function storeWarnings(
  report: ((message: string) => void) | undefined,
): ((warning: SessionWarning) => void) | undefined {
  if (!report) return undefined;
  return (warning) =>
    report(
      warning.path === undefined
        ? warning.message
        : `${warning.path}:${warning.line ?? "?"}: ${warning.message}`,
    );
}
