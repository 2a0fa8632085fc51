import { describe, expect, it } from "vitest";
import { createSseParser, type SseEvent } from "../../src/llm/sse.js";

function parseInChunks(text: string, cut: (t: string) => string[]): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createSseParser((e) => events.push(e));
  for (const c of cut(text)) parser.push(c);
  parser.end();
  return events;
}

const STREAM =
  ": keep-alive comment\n" +
  'event: message_start\ndata: {"a":1}\n\n' +
  "data: first line\ndata: second line\n\n" +
  "event: ping\ndata:no-space\n\n" +
  "data: [DONE]\n\n";

const EXPECTED: SseEvent[] = [
  { event: "message_start", data: '{"a":1}' },
  { event: "message", data: "first line\nsecond line" },
  { event: "ping", data: "no-space" },
  { event: "message", data: "[DONE]" },
];

describe("SSE parser", () => {
  it("parses named events, multi-line data and comments", () => {
    expect(parseInChunks(STREAM, (t) => [t])).toEqual(EXPECTED);
  });

  it("gives the same events whatever the chunk boundaries", () => {
    for (let size = 1; size <= 7; size++) {
      const cut = (t: string) =>
        Array.from({ length: Math.ceil(t.length / size) }, (_, i) => t.slice(i * size, i * size + size));
      expect(parseInChunks(STREAM, cut)).toEqual(EXPECTED);
    }
  });

  it("accepts CRLF and lone CR line endings, even with CR and LF in different chunks", () => {
    const crlf = STREAM.replaceAll("\n", "\r\n");
    expect(parseInChunks(crlf, (t) => [t])).toEqual(EXPECTED);
    const splitAtCR = (t: string) => t.split(/(?<=\r)/); // every chunk ends right after a \r
    expect(parseInChunks(crlf, splitAtCR)).toEqual(EXPECTED);
    expect(parseInChunks(STREAM.replaceAll("\n", "\r"), (t) => [t])).toEqual(EXPECTED);
  });

  it("does not dispatch an event without data and flushes an unterminated last event", () => {
    expect(parseInChunks("event: lonely\n\ndata: tail", (t) => [t])).toEqual([
      { event: "message", data: "tail" },
    ]);
  });
});
