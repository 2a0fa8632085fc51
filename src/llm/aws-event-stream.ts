/**
 * The AWS event-stream binary framing (`application/vnd.amazon.eventstream`), in which Bedrock streams
 * its answers. Each frame is:
 *
 *   total length (u32) | headers length (u32) | CRC32 of those 8 bytes | headers | payload | CRC32 of all before
 *
 * and each header is: name length (u8), name, value type (u8), value. Bedrock sends `:message-type`
 * (`event`, `exception` or `error`), `:event-type` (`chunk`, `messageStart`, …) and `:content-type`.
 *
 * Our own ~150 lines instead of `@smithy/eventstream-codec`: the decoder hands out the same `SseEvent`
 * shape the SSE parser does, so the providers' one driver (stream-call.ts) reads both, and an in-band
 * exception becomes a typed `ProviderError` here rather than a thrown SDK class.
 */
import { kindForAwsException } from "./aws-errors.js";
import { crc32 } from "./crc32.js";
import { ProviderError } from "./errors.js";
import { kindForStreamError } from "./http.js";
import type { SseEvent } from "./sse.js";
import type { Framing, FramingParser } from "./sse-reader.js";
import { streamError } from "./sse-reader.js";

/** A frame's header values: strings for the string type, numbers, booleans or bytes for the others. */
type EventStreamHeaders = Record<string, string | number | boolean | bigint | Buffer>;

/** One decoded frame. */
export interface EventStreamFrame {
  headers: EventStreamHeaders;
  payload: Buffer;
}

/**
 * Where one checksum-verified frame lies in `bytes`: its headers from `headersStart` to
 * `payloadStart`, its payload from there to `payloadEnd`. Offsets instead of a frame object: the
 * reader runs once per streamed token and allocates nothing for it.
 */
type FrameVisitor = (bytes: Buffer, headersStart: number, payloadStart: number, payloadEnd: number) => void;

const PRELUDE = 12;
const TRAILER = 4;
/** Frames larger than this are refused (AWS caps them at 16 MB; a corrupt length must not make us buffer gigabytes). */
const MAX_FRAME = 16 * 1024 * 1024;

/**
 * An incremental frame reader: push bytes as they arrive (split anywhere), each whole frame is
 * checked (both checksums) and handed to `visit`. Throws an `Error` on a corrupt frame (bad CRC,
 * impossible lengths); the caller makes it a stream error.
 */
function createFrameReader(visit: FrameVisitor): {
  push(chunk: Buffer): void;
  /** Throws when the body ended inside a frame. */
  end(): void;
} {
  let buffered: Buffer = Buffer.alloc(0);
  return {
    push(chunk) {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      let pos = 0;
      while (buffered.length - pos >= PRELUDE) {
        const total = buffered.readUInt32BE(pos);
        const headersLength = buffered.readUInt32BE(pos + 4);
        const preludeCrc = crc32(buffered, pos, pos + 8);
        if (preludeCrc !== buffered.readUInt32BE(pos + 8))
          throw new Error("event-stream prelude checksum mismatch");
        if (total < PRELUDE + TRAILER + headersLength || total > MAX_FRAME)
          throw new Error(`event-stream frame length ${total} is impossible`);
        if (buffered.length - pos < total) break;
        const end = pos + total - TRAILER;
        // The message checksum covers the prelude too: it continues from the prelude's.
        if (crc32(buffered, pos + 8, end, preludeCrc) !== buffered.readUInt32BE(end))
          throw new Error("event-stream message checksum mismatch");
        visit(buffered, pos + PRELUDE, pos + PRELUDE + headersLength, end);
        pos += total;
      }
      buffered = pos === 0 ? buffered : buffered.subarray(pos);
    },
    end() {
      if (buffered.length > 0)
        throw new Error(`the body ended inside an event-stream frame (${buffered.length} bytes left)`);
    },
  };
}

/** An incremental decoder handing out whole frames, every header read (see `createFrameReader`). */
export function createEventStreamDecoder(onFrame: (frame: EventStreamFrame) => void): {
  push(chunk: Buffer): void;
  /** Throws when the body ended inside a frame. */
  end(): void;
} {
  return createFrameReader((bytes, headersStart, payloadStart, payloadEnd) =>
    onFrame(frameAt(bytes, headersStart, payloadStart, payloadEnd)),
  );
}

function frameAt(
  bytes: Buffer,
  headersStart: number,
  payloadStart: number,
  payloadEnd: number,
): EventStreamFrame {
  return {
    headers: readHeaders(bytes.subarray(headersStart, payloadStart)),
    payload: bytes.subarray(payloadStart, payloadEnd),
  };
}

function readHeaders(bytes: Buffer): EventStreamHeaders {
  const headers: EventStreamHeaders = {};
  let pos = 0;
  while (pos < bytes.length) {
    const nameLength = bytes[pos];
    const name = bytes.toString("utf8", pos + 1, pos + 1 + nameLength);
    pos += 1 + nameLength;
    const type = bytes[pos++];
    switch (type) {
      case 0:
      case 1:
        headers[name] = type === 0;
        break;
      case 2:
        headers[name] = bytes.readInt8(pos);
        pos += 1;
        break;
      case 3:
        headers[name] = bytes.readInt16BE(pos);
        pos += 2;
        break;
      case 4:
        headers[name] = bytes.readInt32BE(pos);
        pos += 4;
        break;
      case 5:
      case 8: // timestamp: milliseconds since the epoch
        headers[name] = bytes.readBigInt64BE(pos);
        pos += 8;
        break;
      case 6:
      case 7: {
        const length = bytes.readUInt16BE(pos);
        const value = bytes.subarray(pos + 2, pos + 2 + length);
        headers[name] = type === 7 ? value.toString("utf8") : Buffer.from(value);
        pos += 2 + length;
        break;
      }
      case 9:
        headers[name] = Buffer.from(bytes.subarray(pos, pos + 16));
        pos += 16;
        break;
      default:
        throw new Error(`event-stream header ${JSON.stringify(name)} has unknown type ${type}`);
    }
  }
  return headers;
}

/** Encodes one frame with string headers (what mocks, cassettes and the tests write). */
export function encodeEventStreamFrame(headers: Record<string, string>, payload: Buffer | string): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const n = Buffer.from(name, "utf8");
    const v = Buffer.from(value, "utf8");
    const head = Buffer.alloc(1 + n.length + 3);
    head[0] = n.length;
    n.copy(head, 1);
    head[1 + n.length] = 7;
    head.writeUInt16BE(v.length, 2 + n.length);
    parts.push(head, v);
  }
  const headerBytes = Buffer.concat(parts);
  const body = typeof payload === "string" ? Buffer.from(payload, "utf8") : payload;
  const total = PRELUDE + headerBytes.length + body.length + TRAILER;
  const frame = Buffer.alloc(total);
  frame.writeUInt32BE(total, 0);
  frame.writeUInt32BE(headerBytes.length, 4);
  frame.writeUInt32BE(crc32(frame, 0, 8), 8);
  headerBytes.copy(frame, PRELUDE);
  body.copy(frame, PRELUDE + headerBytes.length);
  frame.writeUInt32BE(crc32(frame, 0, total - TRAILER), total - TRAILER);
  return frame;
}

/**
 * Turns one event frame's payload into the event its decoder reads, or undefined to skip the frame.
 * `eventType` is the frame's `:event-type` (`message` when it has none); the payload is
 * `bytes[start, end)`.
 */
export type EventOf = (eventType: string, bytes: Buffer, start: number, end: number) => SseEvent | undefined;

/** The default: the event named by its `:event-type`, the payload as text. */
const namedEvent: EventOf = (eventType, bytes, start, end) => ({
  event: eventType,
  data: bytes.toString("utf8", start, end),
});

/**
 * The event-stream framing for the providers' SSE-shaped driver: each `event` frame becomes the
 * `SseEvent` `eventOf` makes of it (default: named by its `:event-type`, the payload as text); an
 * `exception` or `error` frame becomes a typed `ProviderError` (a throttling exception is
 * `rate_limit`, and so retried when nothing was streamed yet); a corrupt frame is a `stream` error.
 */
export function eventStreamFraming(provider: string, eventOf: EventOf = namedEvent): Framing {
  return {
    binary: true,
    create(onEvent: (event: SseEvent) => void, afterFirstDelta: () => boolean): FramingParser {
      const scan: HeaderScan = { event: true, eventType: undefined };
      const reader = createFrameReader((bytes, headersStart, payloadStart, payloadEnd) => {
        if (!scanHeaders(bytes, headersStart, payloadStart, scan)) {
          // A header of another type: read them all the general way.
          const frame = frameAt(bytes, headersStart, payloadStart, payloadEnd);
          const type = frame.headers[":message-type"];
          scan.event = type === "event" || type === undefined;
          scan.eventType = frame.headers[":event-type"]?.toString();
        }
        if (!scan.event)
          throw inBandError(
            provider,
            frameAt(bytes, headersStart, payloadStart, payloadEnd),
            afterFirstDelta(),
          );
        const event = eventOf(scan.eventType ?? "message", bytes, payloadStart, payloadEnd);
        if (event) onEvent(event);
      });
      const corrupt = (err: unknown): ProviderError =>
        err instanceof ProviderError
          ? err
          : streamError(provider, (err as Error).message, afterFirstDelta(), err);
      return {
        push(chunk: Buffer) {
          try {
            reader.push(chunk);
          } catch (err) {
            throw corrupt(err);
          }
        },
        end() {
          try {
            reader.end();
          } catch (err) {
            throw corrupt(err);
          }
        },
      };
    },
  };
}

/** What the header scan learnt of one frame: whether it is an event, and its `:event-type`. */
interface HeaderScan {
  event: boolean;
  eventType: string | undefined;
}

const STRING_TYPE = 7;
const EVENT_TYPE = Buffer.from(":event-type");
const MESSAGE_TYPE = Buffer.from(":message-type");
const EVENT = Buffer.from("event");
/** The event types Bedrock sends, compared as bytes so the common ones cost no string decoding. */
const KNOWN_EVENT_TYPES = [
  "chunk",
  "messageStart",
  "contentBlockStart",
  "contentBlockDelta",
  "contentBlockStop",
  "messageStop",
  "metadata",
].map((name) => ({ name, bytes: Buffer.from(name) }));

/**
 * Reads the two headers the framing needs from `bytes[pos, end)` into `into`, by offset and without
 * decoding the names (Bedrock sends three short string headers per frame, one frame per token).
 * False when a header is not a string: the caller then reads them all with `readHeaders`.
 */
function scanHeaders(bytes: Buffer, pos: number, end: number, into: HeaderScan): boolean {
  into.event = true;
  into.eventType = undefined;
  while (pos < end) {
    const nameLength = bytes[pos];
    const name = pos + 1;
    const valueAt = name + nameLength;
    if (bytes[valueAt] !== STRING_TYPE) return false;
    const valueLength = (bytes[valueAt + 1] << 8) | bytes[valueAt + 2];
    const value = valueAt + 3;
    if (sameBytes(bytes, name, nameLength, EVENT_TYPE))
      into.eventType =
        knownEventType(bytes, value, valueLength) ?? bytes.toString("utf8", value, value + valueLength);
    else if (sameBytes(bytes, name, nameLength, MESSAGE_TYPE))
      into.event = sameBytes(bytes, value, valueLength, EVENT);
    pos = value + valueLength;
  }
  return true;
}

function knownEventType(bytes: Buffer, at: number, length: number): string | undefined {
  for (const known of KNOWN_EVENT_TYPES) if (sameBytes(bytes, at, length, known.bytes)) return known.name;
  return undefined;
}

/** Whether `bytes[at, at + length)` is `expected`. */
function sameBytes(bytes: Buffer, at: number, length: number, expected: Uint8Array): boolean {
  if (length !== expected.length) return false;
  for (let i = 0; i < length; i++) if (bytes[at + i] !== expected[i]) return false;
  return true;
}

function inBandError(provider: string, frame: EventStreamFrame, afterFirstDelta: boolean): ProviderError {
  const exception = String(frame.headers[":exception-type"] ?? frame.headers[":error-code"] ?? "unknown");
  let message = String(frame.headers[":error-message"] ?? "");
  try {
    const body = JSON.parse(frame.payload.toString("utf8"));
    if (typeof body?.message === "string") message = body.message;
    else if (typeof body?.Message === "string") message = body.Message;
  } catch {
    message ||= frame.payload.toString("utf8").slice(0, 500);
  }
  return new ProviderError({
    kind: kindForAwsException(exception, message) ?? kindForStreamError(undefined, message),
    provider,
    afterFirstDelta,
    message: `${provider} stream error (${exception}): ${message || "no message"}`,
  });
}
