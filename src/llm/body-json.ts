/**
 * Request bodies as JSON text without re-encoding the whole history on every call.
 *
 * A session's request grows by a message or two per turn while everything before stays the same,
 * yet `JSON.stringify` of the whole body is the largest per-turn cost of a long session (about
 * 0.2 ms per 50 KB here, see bench/loop.mjs). Each provider instance keeps the wire JSON of the
 * messages it already sent, keyed by the message object, and joins the pieces: the bytes are exactly
 * those `JSON.stringify` of the full body would give.
 *
 * A cached piece is reused only while the message still holds the same blocks with the same field
 * values (compared by identity, which is cheap), so replacing a message, a block, or a block's text
 * or tool result in place is seen. Only edits deep inside a tool call's `input` or an image's `source`
 * object go unseen: history is treated as immutable there, as every provider's cache already assumes.
 */
import type { ContentBlock, Message, ToolDefinition } from "./types.js";

/** Wire JSON of messages and tools, remembered per object for one provider instance. */
export interface JsonCache {
  /**
   * The JSON of the first `count` messages as `encode` writes each (empty pieces left out), joined
   * with commas. A message's piece is reused while the message is unchanged.
   */
  messages(messages: Message[], count: number, encode: (message: Message) => string): string;
  /**
   * The JSON of `tool` as `encode` writes it, reused while its name, description and schema object are
   * the same (keyed by the schema: callers rebuild the definition objects on every call).
   */
  tool(tool: ToolDefinition, encode: (tool: ToolDefinition) => string): string;
}

interface Entry {
  message: Message;
  json: string;
  /** The encoder that wrote `json` (OpenAI's differs for its own API and for gateways). */
  encode: (message: Message) => string;
  /** The values the JSON was built from, in `collect` order. */
  seen: unknown[];
}

/** Creates an empty cache; entries go away with the messages they describe. */
export function createJsonCache(): JsonCache {
  // The previous call's pieces in order and their joined text: when the history only grew, the new
  // text is the old one plus the new pieces (a rope, so no copy of the prefix is made here).
  let sent: Entry[] = [];
  let joined = "";
  // Pieces by message, for a history whose positions moved (compaction, a transform dropping messages).
  const byMessage = new WeakMap<Message, Entry>();
  const tools = new WeakMap<object, { name: string; description: string; json: string }>();
  return {
    messages(messages, count, encode) {
      let kept = 0;
      const limit = Math.min(count, sent.length);
      while (
        kept < limit &&
        sent[kept].message === messages[kept] &&
        sent[kept].encode === encode &&
        unchanged(sent[kept].seen, messages[kept])
      )
        kept++;
      if (kept < sent.length) {
        sent = sent.slice(0, kept);
        joined = sent
          .filter((e) => e.json !== "")
          .map((e) => e.json)
          .join(",");
      }
      for (let i = kept; i < count; i++) {
        const message = messages[i];
        let entry = byMessage.get(message);
        if (entry === undefined || entry.encode !== encode || !unchanged(entry.seen, message)) {
          const seen: unknown[] = [];
          collect(message, seen);
          entry = { message, json: encode(message), encode, seen };
          byMessage.set(message, entry);
        }
        sent.push(entry);
        if (entry.json !== "") joined = joined === "" ? entry.json : `${joined},${entry.json}`;
      }
      return joined;
    },
    tool(tool, encode) {
      const hit = tools.get(tool.input_schema);
      if (hit?.name === tool.name && hit.description === tool.description) return hit.json;
      const json = encode(tool);
      tools.set(tool.input_schema, { name: tool.name, description: tool.description, json });
      return json;
    },
  };
}

/** True when `message` still holds exactly the values `seen` was collected from (no allocation). */
function unchanged(seen: unknown[], message: Message): boolean {
  const content = message.content;
  if (seen[0] !== message.role || seen[1] !== content) return false;
  if (typeof content === "string") return seen.length === 2;
  if (seen[2] !== content.length) return false;
  let i = 3;
  for (const b of content) {
    i = sameBlock(seen, i, b);
    if (i < 0) return false;
  }
  return i === seen.length;
}

/** Compares one block against `seen` from `i`; returns the next index, or -1 on a difference. */
function sameBlock(seen: unknown[], i: number, b: ContentBlock): number {
  if (seen[i] !== b || seen[i + 1] !== b.type) return -1;
  i += 2;
  switch (b.type) {
    case "text":
      return seen[i] === b.text ? i + 1 : -1;
    case "thinking":
      return seen[i] === b.thinking && seen[i + 1] === b.signature ? i + 2 : -1;
    case "redacted_thinking":
      return seen[i] === b.data ? i + 1 : -1;
    case "tool_use":
      return seen[i] === b.id && seen[i + 1] === b.name && seen[i + 2] === b.input ? i + 3 : -1;
    case "image":
      return seen[i] === b.source ? i + 1 : -1;
    case "tool_result": {
      if (seen[i] !== b.tool_use_id || seen[i + 1] !== b.isError || seen[i + 2] !== b.content) return -1;
      i += 3;
      if (typeof b.content === "string") return i;
      if (seen[i] !== b.content.length) return -1;
      i++;
      for (const c of b.content) {
        i = sameBlock(seen, i, c);
        if (i < 0) return -1;
      }
      return i;
    }
    default:
      return i;
  }
}

/** Pushes every value a message's wire form is built from onto `out`, in a fixed order. */
function collect(message: Message, out: unknown[]): void {
  out.push(message.role, message.content);
  if (typeof message.content === "string") return;
  out.push(message.content.length);
  for (const block of message.content) collectBlock(block, out);
}

function collectBlock(b: ContentBlock, out: unknown[]): void {
  out.push(b, b.type);
  switch (b.type) {
    case "text":
      out.push(b.text);
      return;
    case "thinking":
      out.push(b.thinking, b.signature);
      return;
    case "redacted_thinking":
      out.push(b.data);
      return;
    case "tool_use":
      out.push(b.id, b.name, b.input);
      return;
    case "image":
      out.push(b.source);
      return;
    case "tool_result":
      out.push(b.tool_use_id, b.isError, b.content);
      if (typeof b.content !== "string") {
        out.push(b.content.length);
        for (const c of b.content) collectBlock(c, out);
      }
      return;
  }
}

const RAW = Symbol("raw JSON");

/** JSON text to be placed into `objectJson` output as is. */
export interface RawJson {
  readonly [RAW]: string;
}

/** Marks already-encoded JSON for `objectJson`. */
export function rawJson(json: string): RawJson {
  return { [RAW]: json };
}

/**
 * The JSON of an object whose values may be `RawJson`: byte-for-byte what `JSON.stringify` gives for
 * the same object with the raw pieces decoded (same key order, `undefined` values left out).
 */
export function objectJson(fields: Record<string, unknown>): string {
  let out = "";
  for (const key in fields) {
    const value = fields[key];
    const json =
      typeof value === "object" && value !== null && RAW in value
        ? (value as RawJson)[RAW]
        : JSON.stringify(value);
    if (json === undefined) continue;
    out += `${out === "" ? "{" : ","}${JSON.stringify(key)}:${json}`;
  }
  return out === "" ? "{}" : `${out}}`;
}
