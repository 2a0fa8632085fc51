/** The AWS event-stream framing: frames split anywhere, checksums, header types, in-band exceptions. */
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  createEventStreamDecoder,
  type EventStreamFrame,
  encodeEventStreamFrame,
  eventStreamFraming,
} from "../../src/llm/aws-event-stream.js";
import { invokeChunkEvent } from "../../src/llm/bedrock-invoke.js";
import { crc32 } from "../../src/llm/crc32.js";
import { isProviderError } from "../../src/llm/errors.js";
import type { SseEvent } from "../../src/llm/sse.js";

const frame = (eventType: string, payload: string) =>
  encodeEventStreamFrame(
    { ":message-type": "event", ":event-type": eventType, ":content-type": "application/json" },
    payload,
  );

describe("event-stream decoder", () => {
  it("decodes frames however the bytes are split, one byte at a time included", () => {
    const bytes = Buffer.concat([
      frame("chunk", '{"a":1}'),
      frame("chunk", '{"b":"ü"}'),
      frame("metadata", "{}"),
    ]);
    for (const step of [1, 3, 7, 16, bytes.length]) {
      const frames: EventStreamFrame[] = [];
      const decoder = createEventStreamDecoder((f) => frames.push(f));
      for (let i = 0; i < bytes.length; i += step) decoder.push(bytes.subarray(i, i + step));
      decoder.end();
      expect(frames.map((f) => [f.headers[":event-type"], f.payload.toString()])).toEqual([
        ["chunk", '{"a":1}'],
        ["chunk", '{"b":"ü"}'],
        ["metadata", "{}"],
      ]);
    }
  });

  it("reads every header value type", () => {
    const headers = Buffer.concat([
      hdr("t", 0, Buffer.alloc(0)),
      hdr("f", 1, Buffer.alloc(0)),
      hdr("b", 2, Buffer.from([0xff])),
      hdr("s", 3, int(2, -2)),
      hdr("i", 4, int(4, 70000)),
      hdr("l", 5, Buffer.from("0000000000000005", "hex")),
      hdr("y", 6, Buffer.concat([int(2, 2), Buffer.from([1, 2])])),
      hdr("u", 9, Buffer.alloc(16, 7)),
    ]);
    const frames: EventStreamFrame[] = [];
    createEventStreamDecoder((f) => frames.push(f)).push(rawFrame(headers, Buffer.from("x")));
    expect(frames[0].headers).toMatchObject({ t: true, f: false, b: -1, s: -2, i: 70000, l: 5n });
    expect(frames[0].headers.y).toEqual(Buffer.from([1, 2]));
    expect(frames[0].payload.toString()).toBe("x");
  });

  it("refuses a frame whose message checksum is wrong", () => {
    const bad = frame("chunk", '{"a":1}');
    bad[bad.length - 6] ^= 1; // flip a payload bit
    expect(() => createEventStreamDecoder(() => {}).push(bad)).toThrow(/message checksum/);
  });

  it("refuses a frame whose prelude checksum is wrong (a corrupt length never makes it buffer)", () => {
    const bad = frame("chunk", "{}");
    bad[2] ^= 0x40;
    expect(() => createEventStreamDecoder(() => {}).push(bad)).toThrow(/prelude checksum/);
  });

  it("says when the body ends inside a frame", () => {
    const decoder = createEventStreamDecoder(() => {});
    decoder.push(frame("chunk", "{}").subarray(0, 20));
    expect(() => decoder.end()).toThrow(/ended inside/);
  });
});

describe("event-stream framing", () => {
  const parse = (bytes: Buffer, afterFirstDelta = false) => {
    const events: SseEvent[] = [];
    const parser = eventStreamFraming("bedrock").create(
      (e) => events.push(e),
      () => afterFirstDelta,
    );
    let error: unknown;
    try {
      parser.push(bytes);
      parser.end();
    } catch (err) {
      error = err;
    }
    return { events, error };
  };

  it("turns event frames into named events", () => {
    expect(parse(frame("messageStart", '{"role":"assistant"}')).events).toEqual([
      { event: "messageStart", data: '{"role":"assistant"}' },
    ]);
  });

  it.each([
    ["throttlingException", "rate_limit"],
    ["serviceUnavailableException", "overloaded"],
    ["internalServerException", "server"],
    ["modelStreamErrorException", "server"],
    ["modelTimeoutException", "timeout"],
    ["validationException", "invalid_request"],
  ])("turns an in-band %s into a %s error, after the events before it", (exceptionType, kind) => {
    const exception = encodeEventStreamFrame(
      { ":message-type": "exception", ":exception-type": exceptionType, ":content-type": "application/json" },
      JSON.stringify({ message: "Request refused, please wait" }),
    );
    const { events, error } = parse(Buffer.concat([frame("chunk", "{}"), exception]), true);
    expect(events).toHaveLength(1);
    expect(isProviderError(error)).toBe(true);
    expect(error).toMatchObject({ kind, afterFirstDelta: true, provider: "bedrock" });
    expect((error as Error).message).toContain(exceptionType);
    expect((error as Error).message).toContain("Request refused, please wait");
  });

  it("makes a corrupt frame a stream error", () => {
    const bad = frame("chunk", "{}");
    bad[bad.length - 1] ^= 1;
    expect(parse(bad).error).toMatchObject({ kind: "stream" });
  });
});

describe("crc32", () => {
  it("gives zlib's CRC for spans of every size class at any offset, and continues from a previous CRC", () => {
    const bytes = Buffer.alloc(5000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 131 + 7) & 0xff;
    for (const length of [0, 1, 7, 8, 9, 15, 16, 17, 170, 383, 384, 385, 4096]) {
      for (const start of [0, 3]) {
        const span = bytes.subarray(start, start + length);
        expect(crc32(bytes, start, start + length)).toBe(zlib.crc32(span));
        // Split anywhere, the second part continuing from the first: the CRC of the whole.
        const cut = start + (length >> 1);
        expect(crc32(bytes, cut, start + length, crc32(bytes, start, cut))).toBe(zlib.crc32(span));
      }
    }
  });
});

describe("InvokeModel chunk frames", () => {
  const events = (...payloads: string[]) => {
    const out: SseEvent[] = [];
    const parser = eventStreamFraming("bedrock", invokeChunkEvent).create(
      (e) => out.push(e),
      () => false,
    );
    parser.push(Buffer.concat(payloads.map((p) => frame("chunk", p))));
    parser.end();
    return out;
  };
  const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
  const event = '{"type":"content_block_delta","delta":{"text":"ünïcödé ✓ ???"}}';

  it("unwraps the event whatever the wrapper looks like: padding field, fields reordered, escaped slashes", () => {
    const escaped = b64(event).replace(/\//g, "\\/");
    expect(escaped).toContain("\\/"); // the case is exercised
    const got = events(
      `{"bytes":"${b64(event)}","p":"abcdef"}`,
      `{"p":"abc","bytes":"${b64(event)}"}`,
      `{"bytes":"${escaped}"}`,
      `{"bytes":"${b64("{}")}"}`, // shorter than the one before: nothing of it left over
    );
    expect(got).toEqual([
      { event: "message", data: event },
      { event: "message", data: event },
      { event: "message", data: event },
      { event: "message", data: "{}" },
    ]);
  });

  it("unwraps a chunk larger than the reused buffer", () => {
    const big = JSON.stringify({ type: "content_block_delta", delta: { text: "ß".repeat(100_000) } });
    expect(events(`{"bytes":"${b64(big)}"}`)).toEqual([{ event: "message", data: big }]);
  });

  it("passes a payload that is not JSON on as it is, for the decoder to report", () => {
    expect(events("{broken")).toEqual([{ event: "message", data: "{broken" }]);
  });

  it("skips event frames other than chunk", () => {
    const out: SseEvent[] = [];
    const parser = eventStreamFraming("bedrock", invokeChunkEvent).create(
      (e) => out.push(e),
      () => false,
    );
    parser.push(frame("initial-response", "{}"));
    expect(out).toEqual([]);
  });
});

describe("event-stream framing header scan", () => {
  it("reads frames whose headers are not all strings, or name an unknown event type", () => {
    const headers = Buffer.concat([
      hdr(":message-type", 7, Buffer.concat([int(2, 5), Buffer.from("event")])),
      hdr(":event-type", 7, Buffer.concat([int(2, 9), Buffer.from("somethingNew".slice(0, 9))])),
      hdr(":sequence", 4, int(4, 12)),
    ]);
    const out: SseEvent[] = [];
    const parser = eventStreamFraming("bedrock").create(
      (e) => out.push(e),
      () => false,
    );
    parser.push(Buffer.concat([rawFrame(headers, Buffer.from("{}")), frame("brandNewEvent", '{"x":1}')]));
    expect(out).toEqual([
      { event: "something", data: "{}" },
      { event: "brandNewEvent", data: '{"x":1}' },
    ]);
  });
});

function int(bytes: 2 | 4, value: number): Buffer {
  const b = Buffer.alloc(bytes);
  if (bytes === 2) b.writeInt16BE(value);
  else b.writeInt32BE(value);
  return b;
}

function hdr(name: string, type: number, value: Buffer): Buffer {
  return Buffer.concat([Buffer.from([name.length]), Buffer.from(name), Buffer.from([type]), value]);
}

/** A frame with arbitrary header bytes, checksums computed by re-encoding through the public encoder's rules. */
function rawFrame(headers: Buffer, payload: Buffer): Buffer {
  const total = 12 + headers.length + payload.length + 4;
  const out = Buffer.alloc(total);
  out.writeUInt32BE(total, 0);
  out.writeUInt32BE(headers.length, 4);
  out.writeUInt32BE(zlib.crc32(out.subarray(0, 8)), 8);
  headers.copy(out, 12);
  payload.copy(out, 12 + headers.length);
  out.writeUInt32BE(zlib.crc32(out.subarray(0, total - 4)), total - 4);
  return out;
}
