/**
 * Under an Agent SDK host (stream-json input), Goat also writes each session's transcript where
 * Claude Code writes it (`<CLAUDE_CONFIG_DIR or ~/.claude>/projects/<project key>/<id>.jsonl`):
 * the SDK's own session helpers (`getSessionMessages`, `listSessions`) read only that folder, and
 * hosts build on them — Zed's `claude-agent-acp` replays a loaded session's history from there, and
 * without the copy an editor showed an empty conversation after `session/load`. Goat's user and
 * assistant lines are already in the shape those helpers read and are copied as they are; Goat's own
 * kinds (header, result, model change, compaction) become `system` lines, which the helpers pass
 * over: left as they are, they cut the parent chain the helpers walk, and a loaded session showed only
 * its last prompt.
 *
 * Goat's own transcript is written first and stays the one Goat reads (resume, fork, `goat
 * sessions`). Off when the session persists nothing, when the host keeps the transcript itself
 * (`--session-mirror`, a store of its own), or with `GOAT_CLAUDE_TRANSCRIPT=0`. Cost: one more
 * synchronous append (open, write, close) per batch of entries, ~50 µs for 2 KB on a loaded
 * 2-core machine, a few batches a turn.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { SessionEntry, SessionStore } from "../../session/index.js";
import { createJsonlSessionStore } from "../../session/index.js";
import type { CliQueryOptions } from "../sdk-options.js";
import { claudeTranscriptPath } from "./session-mirror.js";

/** The options with Goat's usual store, each append copied to Claude Code's transcript file. */
export function withClaudeTranscript(
  options: CliQueryOptions,
  onWarning: (message: string) => void,
): CliQueryOptions {
  const env = options.env ?? process.env;
  if (options.persistSession === false || options.sessionStore !== undefined) return options;
  if (env.GOAT_CLAUDE_TRANSCRIPT === "0") return options;
  const store = createJsonlSessionStore({
    home: env.GOAT_HOME && env.GOAT_HOME !== "" ? env.GOAT_HOME : undefined,
    onWarning: (w) => onWarning(w.path === undefined ? w.message : `${w.path}: ${w.message}`),
  });
  return {
    ...options,
    sessionStore: copiedSessionStore(store, { cwd: options.cwd ?? process.cwd(), env }, onWarning),
  };
}

/** `store`, with each batch also appended, as JSON lines, to Claude Code's file for the session. */
function copiedSessionStore(
  store: SessionStore,
  context: { cwd: string; env: Record<string, string | undefined> },
  onWarning: (message: string) => void,
): SessionStore {
  const folders = new Set<string>();
  let warned = false;
  return {
    async append(sessionId, entries) {
      await store.append(sessionId, entries);
      const path = claudeTranscriptPath(context, sessionId);
      try {
        const folder = dirname(path);
        if (!folders.has(folder)) {
          mkdirSync(folder, { recursive: true, mode: 0o700 });
          folders.add(folder);
        }
        appendFileSync(path, entries.map((entry) => `${JSON.stringify(claudeLine(entry))}\n`).join(""), {
          mode: 0o600,
        });
      } catch (error) {
        // The copy is a convenience for the host's history view: Goat's own transcript is written.
        if (!warned)
          onWarning(`could not write Claude Code's copy of the transcript: ${(error as Error).message}`);
        warned = true;
      }
    },
    load: (sessionId, options) => store.load(sessionId, options),
    list: (options) => store.list(options),
    delete: (sessionId) => store.delete(sessionId),
    close: async () => store.close?.(),
  };
}

/** The line Claude Code's readers take for `entry`: messages as they are, Goat's other kinds as `system`. */
function claudeLine(entry: SessionEntry): Record<string, unknown> {
  if (entry.type === "user" || entry.type === "assistant") return entry as unknown as Record<string, unknown>;
  return { ...entry, type: "system", subtype: `goat_${entry.type}`, goatType: entry.type, isMeta: true };
}
