/**
 * An incremental Server-Sent Events parser (the WHATWG event-stream format) for streamed model answers.
 *
 * Text arrives in chunks split anywhere (mid-line, between `\r` and `\n`); the parser keeps only the
 * unfinished line between chunks. It is on the hot path of every streamed token, so it scans with
 * `indexOf` instead of per-character loops or regexes, and allocates only the strings it hands out.
 */

/** One dispatched SSE event: its `event:` name (`message` when unnamed) and its joined `data:` lines. */
export interface SseEvent {
  event: string;
  data: string;
}

/** An incremental parser: feed it decoded text, call `end()` when the stream closes. */
export interface SseParser {
  /** Parses a chunk and calls `onEvent` for every event it completes. */
  push(chunk: string): void;
  /**
   * Flushes a final event the server did not terminate with a blank line (lenient: some gateways
   * close right after the last `data:` line).
   */
  end(): void;
}

/** Creates a parser that calls `onEvent` once per complete event, in order. */
export function createSseParser(onEvent: (event: SseEvent) => void): SseParser {
  let pending = ""; // the unfinished line carried over from the previous chunk
  let skipLeadingLF = false; // the previous chunk ended with `\r`; a `\n` starting this one belongs to it
  let eventName = "";
  let data: string | undefined;

  const dispatch = (): void => {
    if (data !== undefined) onEvent({ event: eventName || "message", data });
    eventName = "";
    data = undefined;
  };

  const line = (text: string, start: number, end: number): void => {
    if (start === end) {
      dispatch();
      return;
    }
    const first = text.charCodeAt(start);
    if (first === 58 /* ':' */) return; // a comment (keep-alive)
    const colon = text.indexOf(":", start);
    let field: string;
    let value: string;
    if (colon === -1 || colon >= end) {
      field = text.slice(start, end);
      value = "";
    } else {
      field = text.slice(start, colon);
      const valueStart = text.charCodeAt(colon + 1) === 32 /* ' ' */ ? colon + 2 : colon + 1;
      value = valueStart >= end ? "" : text.slice(valueStart, end);
    }
    if (field === "data") data = data === undefined ? value : `${data}\n${value}`;
    else if (field === "event") eventName = value;
    // `id` and `retry` are meaningless for a one-shot POST stream; unknown fields are ignored by spec.
  };

  const push = (chunk: string): void => {
    if (chunk.length === 0) return;
    let text = chunk;
    let pos = 0;
    if (skipLeadingLF) {
      skipLeadingLF = false;
      if (text.charCodeAt(0) === 10) pos = 1;
    }
    if (pending.length > 0) {
      text = pending + text.slice(pos);
      pos = 0;
      pending = "";
    }
    const len = text.length;
    if (text.indexOf("\r", pos) === -1) {
      // Fast path: `\n` line endings only (every provider we know of).
      for (;;) {
        const nl = text.indexOf("\n", pos);
        if (nl === -1) break;
        line(text, pos, nl);
        pos = nl + 1;
      }
    } else {
      for (;;) {
        const nl = text.indexOf("\n", pos);
        const cr = text.indexOf("\r", pos);
        if (nl === -1 && cr === -1) break;
        if (cr !== -1 && (nl === -1 || cr < nl)) {
          line(text, pos, cr);
          if (cr + 1 === len) {
            skipLeadingLF = true;
            pos = len;
            break;
          }
          pos = text.charCodeAt(cr + 1) === 10 ? cr + 2 : cr + 1;
        } else {
          line(text, pos, nl);
          pos = nl + 1;
        }
      }
    }
    if (pos < len) pending = text.slice(pos);
  };

  const end = (): void => {
    if (pending.length > 0) {
      const rest = pending;
      pending = "";
      line(rest, 0, rest.length);
    }
    dispatch();
  };

  return { push, end };
}
