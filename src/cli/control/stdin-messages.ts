/**
 * `--input-format stream-json`: user messages as JSON lines on stdin
 * (`{"type":"user","message":{"role":"user","content":"…"}}`), turned into the AsyncIterable prompt of
 * `query()`. A line that is not such a message is reported on stderr and skipped; the input ends when
 * stdin closes. The CLI's print mode reads stdin through `control-session.ts`, which also takes
 * control lines and uses `parseInputLine` for the user ones.
 */
import type { SDKUserMessageInput } from "../../index.js";

/** Parses one input line. Returns the message, or an error text saying what is wrong with the line. */
export function parseInputLine(line: string): SDKUserMessageInput | { error: string } {
  let json: any;
  try {
    json = JSON.parse(line);
  } catch (error) {
    return { error: `not JSON (${(error as Error).message})` };
  }
  if (json === null || typeof json !== "object" || json.type !== "user") {
    return {
      error: `expected {"type":"user","message":{"role":"user","content":…}}, got type ${JSON.stringify(json?.type)}`,
    };
  }
  const message = json.message;
  const content = message?.content;
  if (message?.role !== "user" || !(typeof content === "string" || Array.isArray(content))) {
    return {
      error: 'a user line needs message.role "user" and message.content (a string or content blocks)',
    };
  }
  // The host's uuid names the turn (file checkpoints, `user_message_uuid` on its result).
  const uuid = typeof json.uuid === "string" && json.uuid !== "" ? json.uuid : undefined;
  return uuid
    ? { type: "user", uuid, message: { role: "user", content } }
    : { type: "user", message: { role: "user", content } };
}
