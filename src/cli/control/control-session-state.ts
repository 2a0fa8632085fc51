/**
 * The session's state as Claude Code reports it to an Agent SDK that asks for it
 * (`CLAUDE_CODE_SDK_READS_SESSION_STATE=1`): `system/session_state_changed` `running` when a turn
 * starts and `idle` after the result that leaves no message queued. With it, a host that has callbacks
 * (canUseTool, hooks, in-process MCP servers) closes stdin only once the session is idle, so stdin
 * closing while a turn runs means the host gave up: the session stops at once (`control-session.ts`).
 * With `CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS=1` the lines are for the host's program too (no
 * `sdk_host_only`, which the SDK drops): Zed's Claude adapter ends a prompt on `idle`.
 */
import { randomUUID } from "node:crypto";
import type { SDKMessage } from "../../index.js";

/** Tracks turns against the messages that started them. */
export interface SessionStateReporter {
  /** Whether the SDK reads the state lines (it then closes stdin only when idle). */
  readonly reported: boolean;
  /** A user message arrived (it will be a turn). */
  inputArrived(): void;
  /** Reads a message before it is written (a turn's `system/init` means running). */
  before(message: SDKMessage): void;
  /** Reads a message after it was written (the last result means idle). */
  after(message: SDKMessage): void;
  /** Whether a turn is running or queued. */
  busy(): boolean;
}

/** Creates the reporter; `write` puts one line on stdout. */
export function createSessionState(
  write: (line: object) => void,
  env: Record<string, string | undefined>,
): SessionStateReporter {
  const reported = env.CLAUDE_CODE_SDK_READS_SESSION_STATE === "1";
  const forHost = env.CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS === "1";
  let inputs = 0;
  let results = 0;
  let state: "idle" | "running" = "idle";
  const report = (next: typeof state, sessionId: string) => {
    state = next;
    if (!reported && !forHost) return;
    write({
      type: "system",
      subtype: "session_state_changed",
      state: next,
      ...(forHost ? {} : { sdk_host_only: true }),
      uuid: randomUUID(),
      session_id: sessionId,
    });
  };
  return {
    reported,
    inputArrived() {
      inputs++;
    },
    before(message) {
      if (message.type === "system" && message.subtype === "init" && state !== "running") {
        report("running", message.session_id);
      }
    },
    after(message) {
      if (message.type !== "result") return;
      results++;
      // Queued turns follow back to back, as with Claude Code: idle only when none is left.
      if (results >= inputs && state === "running") report("idle", message.session_id);
    },
    busy: () => results < inputs,
  };
}
