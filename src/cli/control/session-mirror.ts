/**
 * `--session-mirror`, which the Claude Agent SDK passes when its host gave a `sessionStore`: every
 * batch of transcript entries Goat appends to its own store is also written on stdout as a
 * `transcript_mirror` frame, and the SDK appends it to the host's store. The frame names the file
 * Claude Code would have written (`<CLAUDE_CONFIG_DIR or ~/.claude>/projects/<project key>/<id>.jsonl`,
 * a subagent's under `<id>/subagents/agent-<agent id>.jsonl`): the SDK turns that path back into the
 * store's key and drops a frame whose path is not under its own projects folder.
 *
 * Goat's own transcript is still written first (resume, fork and `goat sessions` read it); a batch
 * is mirrored once it is stored, in the order written.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import type { SessionEntry, SessionStore } from "../../session/index.js";
import { createJsonlSessionStore, projectKey } from "../../session/index.js";
import type { CliQueryOptions } from "../sdk-options.js";

/** The stdout line the SDK reads. */
interface TranscriptMirrorFrame {
  type: "transcript_mirror";
  filePath: string;
  entries: SessionEntry[];
}

/** `store`, with each append also sent to `send` as a frame. */
function mirroredSessionStore(
  store: SessionStore,
  context: { cwd: string; env: Record<string, string | undefined> },
  send: (frame: TranscriptMirrorFrame) => void,
): SessionStore {
  return {
    async append(sessionId, entries) {
      await store.append(sessionId, entries);
      send({ type: "transcript_mirror", filePath: claudeTranscriptPath(context, sessionId), entries });
    },
    load: (sessionId, options) => store.load(sessionId, options),
    list: (options) => store.list(options),
    delete: (sessionId) => store.delete(sessionId),
    close: async () => store.close?.(),
  };
}

/**
 * Where Claude Code keeps the transcript of `sessionId` started in `context.cwd`:
 * `<CLAUDE_CONFIG_DIR or ~/.claude>/projects/<project key>/<id>.jsonl` (a subagent's under `<id>/subagents/`).
 */
export function claudeTranscriptPath(
  context: { cwd: string; env: Record<string, string | undefined> },
  sessionId: string,
): string {
  const configDir =
    context.env.CLAUDE_CONFIG_DIR && context.env.CLAUDE_CONFIG_DIR !== ""
      ? context.env.CLAUDE_CONFIG_DIR
      : join(homedir(), ".claude");
  return join(configDir, "projects", projectKey(context.cwd), mirrorPath(sessionId));
}

/** `<id>.jsonl`, or Claude Code's place for a subagent's transcript (Goat names it `<id>.agent-<agent>`). */
function mirrorPath(sessionId: string): string {
  const at = sessionId.indexOf(".agent-");
  if (at < 0) return `${sessionId}.jsonl`;
  return join(sessionId.slice(0, at), "subagents", `agent-${sessionId.slice(at + ".agent-".length)}.jsonl`);
}

/**
 * The options with Goat's usual store (the JSONL files under `GOAT_HOME`) mirrored to `writeLine`;
 * unchanged when the session persists nothing or already has a store of its own.
 */
export function withSessionMirror(
  options: CliQueryOptions,
  writeLine: (line: string) => void,
  onWarning: (message: string) => void,
): CliQueryOptions {
  if (options.persistSession === false || options.sessionStore !== undefined) return options;
  const env = options.env ?? process.env;
  const store = createJsonlSessionStore({
    home: env.GOAT_HOME && env.GOAT_HOME !== "" ? env.GOAT_HOME : undefined,
    onWarning: (w) => onWarning(w.path === undefined ? w.message : `${w.path}: ${w.message}`),
  });
  const cwd = options.cwd ?? process.cwd();
  return {
    ...options,
    sessionStore: mirroredSessionStore(store, { cwd, env }, (frame) =>
      writeLine(`${JSON.stringify(frame)}\n`),
    ),
  };
}
