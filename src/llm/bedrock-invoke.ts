/**
 * Bedrock's InvokeModelWithResponseStream wraps each Anthropic stream event in a `chunk` frame whose
 * payload is `{"bytes":"<base64 of the event's JSON>"}` (Bedrock adds a `"p"` padding field after it).
 * Unwrapped here, inside the event-stream framing, so the Anthropic decoder reads each event as if it
 * had come over SSE: no second decoder layer, and the wrapper is not parsed as JSON for the sake of
 * one string field (one JSON.parse less per streamed token).
 */
import type { EventOf } from "./aws-event-stream.js";

const PREFIX = Buffer.from('{"bytes":"');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Base64 is decoded into this buffer, reused while chunks fit (a token's event is a few hundred bytes). */
const SCRATCH_LIMIT = 64 * 1024;
let scratch = Buffer.allocUnsafe(4096);

/** The framing's `EventOf` for InvokeModel: a `chunk` frame becomes the Anthropic event it carries. */
export const invokeChunkEvent: EventOf = (eventType, bytes, start, end) => {
  if (eventType !== "chunk") return undefined; // InvokeModel streams nothing else
  const base64End = base64Field(bytes, start, end);
  if (base64End >= 0)
    return {
      event: "message",
      data: decodeBase64(bytes.toString("latin1", start + PREFIX.length, base64End)),
    };
  // Another shape (fields reordered, escapes): parsed in full. A payload that is not JSON at all goes
  // on as it is, so the Anthropic decoder reports it as a malformed chunk with the stream's position.
  const text = bytes.toString("utf8", start, end);
  let wrapper: { bytes?: unknown } | undefined;
  try {
    wrapper = JSON.parse(text);
  } catch {
    return { event: "message", data: text };
  }
  return { event: "message", data: Buffer.from(String(wrapper?.bytes ?? ""), "base64").toString("utf8") };
};

/**
 * Where the base64 string ends when the payload starts `{"bytes":"` and the string holds no escape,
 * else -1 (the general path then parses it).
 */
function base64Field(bytes: Buffer, start: number, end: number): number {
  if (end - start < PREFIX.length) return -1;
  for (let i = 0; i < PREFIX.length; i++) if (bytes[start + i] !== PREFIX[i]) return -1;
  for (let i = start + PREFIX.length; i < end; i++) {
    const c = bytes[i];
    if (c === QUOTE) return i;
    if (c === BACKSLASH) return -1;
  }
  return -1;
}

function decodeBase64(base64: string): string {
  const most = (base64.length * 3) >>> 2;
  if (most > SCRATCH_LIMIT) return Buffer.from(base64, "base64").toString("utf8");
  if (most > scratch.length) scratch = Buffer.allocUnsafe(Math.max(most, scratch.length * 2));
  const length = scratch.write(base64, 0, "base64");
  return scratch.toString("utf8", 0, length);
}
