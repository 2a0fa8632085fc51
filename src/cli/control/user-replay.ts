/**
 * `--replay-user-messages`: Claude Code writes each user message it takes from stdin back on stdout,
 * with the host's uuid and `isReplay: true`, as the turn that answers it starts (after the turn's
 * `system/init`, before its first message). A host that queues prompts (Zed's Claude adapter) waits
 * for that echo to know the result that follows answers its prompt, not an earlier one.
 * Goat runs one turn per user message in the order they came, each opened by one `system/init`, so
 * the echoes wait in that order and each init releases the next.
 */
import { randomUUID } from "node:crypto";
import type { SDKMessage, SDKUserMessageInput } from "../../index.js";

/** The echoes of messages whose turns have not started yet. */
export interface UserReplay {
  /**
   * Takes a message read from stdin (or the prompt argument) and returns it with a uuid: the host's,
   * or a new one, so that the echo and the result's `user_message_uuid` name the same message.
   */
  received(message: SDKUserMessageInput): SDKUserMessageInput;
  /** The echo to write after `message`, when it is the `system/init` that starts a turn. */
  after(message: SDKMessage): object | undefined;
}

/** Creates the queue of echoes. */
export function createUserReplay(): UserReplay {
  const waiting: Array<SDKUserMessageInput & { uuid: string }> = [];
  return {
    received(message) {
      const withId = { ...message, uuid: message.uuid ?? randomUUID() };
      waiting.push(withId);
      return withId;
    },
    after(message) {
      if (message.type !== "system" || message.subtype !== "init") return undefined;
      const next = waiting.shift();
      if (!next) return undefined;
      return {
        type: "user",
        message: next.message,
        parent_tool_use_id: null,
        uuid: next.uuid,
        session_id: message.session_id,
        timestamp: new Date().toISOString(),
        isReplay: true,
      };
    },
  };
}
