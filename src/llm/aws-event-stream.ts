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
import zlib from "node:zlib";
import { kindForAwsException } from "./aws-errors.js";
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

const PRELUDE = 12;
const TRAILER = 4;
/** Frames larger than this are refused (AWS caps them at 16 MB; a corrupt length must not make us buffer gigabytes). */
const MAX_FRAME = 16 * 1024 * 1024;

/** CRC32 (IEEE, as zlib): Node ≥ 20.15 has it built in; older 20.x use the table below. */
const crc32: (data: Uint8Array, initial?: number) => number =
  typeof (zlib as { crc32?: unknown }).crc32 === "function"
    ? (zlib as unknown as { crc32: (d: Uint8Array, i?: number) => number }).crc32
    : tableCrc32;

let table: Uint32Array | undefined;
function tableCrc32(data: Uint8Array, initial = 0): number {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let crc = (initial ^ 0xffffffff) >>> 0;
  for (let i = 0; i < data.length; i++) crc = table[(crc ^ data[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * An incremental frame decoder: push bytes as they arrive (split anywhere), get whole frames. Throws
 * an `Error` on a corrupt frame (bad CRC, impossible lengths); the caller makes it a stream error.
 */
export function createEventStreamDecoder(onFrame: (frame: EventStreamFrame) => void): {
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
        if (crc32(buffered.subarray(pos, pos + 8)) !== buffered.readUInt32BE(pos + 8))
          throw new Error("event-stream prelude checksum mismatch");
        if (total < PRELUDE + TRAILER + headersLength || total > MAX_FRAME)
          throw new Error(`event-stream frame length ${total} is impossible`);
        if (buffered.length - pos < total) break;
        const frame = buffered.subarray(pos, pos + total);
        if (crc32(frame.subarray(0, total - TRAILER)) !== frame.readUInt32BE(total - TRAILER))
          throw new Error("event-stream message checksum mismatch");
        onFrame({
          headers: readHeaders(frame.subarray(PRELUDE, PRELUDE + headersLength)),
          payload: frame.subarray(PRELUDE + headersLength, total - TRAILER),
        });
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
  frame.writeUInt32BE(crc32(frame.subarray(0, 8)), 8);
  headerBytes.copy(frame, PRELUDE);
  body.copy(frame, PRELUDE + headerBytes.length);
  frame.writeUInt32BE(crc32(frame.subarray(0, total - TRAILER)), total - TRAILER);
  return frame;
}

/**
 * The event-stream framing for the providers' SSE-shaped driver: each `event` frame becomes an
 * `SseEvent` named by its `:event-type` with the payload as text; an `exception` or `error` frame
 * becomes a typed `ProviderError` (a throttling exception is `rate_limit`, and so retried when nothing
 * was streamed yet); a corrupt frame is a `stream` error.
 */
export function eventStreamFraming(provider: string): Framing {
  return {
    binary: true,
    create(onEvent: (event: SseEvent) => void, afterFirstDelta: () => boolean): FramingParser {
      const decoder = createEventStreamDecoder((frame) => {
        const type = frame.headers[":message-type"];
        if (type === "event" || type === undefined) {
          onEvent({
            event: String(frame.headers[":event-type"] ?? "message"),
            data: frame.payload.toString("utf8"),
          });
          return;
        }
        throw inBandError(provider, frame, afterFirstDelta());
      });
      const corrupt = (err: unknown): ProviderError =>
        err instanceof ProviderError
          ? err
          : streamError(provider, (err as Error).message, afterFirstDelta(), err);
      return {
        push(chunk: Buffer) {
          try {
            decoder.push(chunk);
          } catch (err) {
            throw corrupt(err);
          }
        },
        end() {
          try {
            decoder.end();
          } catch (err) {
            throw corrupt(err);
          }
        },
      };
    },
  };
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
