/**
 * The driver every provider shares: POST the request, read the SSE answer in batches, feed each event to
 * the provider's wire decoder and yield the neutral events it produces. The decoders are synchronous
 * state machines, so one streamed token costs one async hop (this generator), not one per layer.
 */
import { type HttpTransport, openSse, streamError } from "./http.js";
import type { SseEvent } from "./sse.js";
import type { ModelRequest, StreamEvent } from "./types.js";

/** Turns one provider's SSE events into neutral stream events. */
export interface WireDecoder {
  /** Handles one SSE event, pushing the events it completes onto `out`. Throws a ProviderError on bad input. */
  onEvent(sse: SseEvent, out: StreamEvent[]): void;
  /** Called when the body ended; pushes the closing events, or returns false if the answer was incomplete. */
  finish(out: StreamEvent[]): boolean;
  /** True once message_end was pushed; later events only drain the body so the socket can be reused. */
  readonly ended: boolean;
  /** True once any content delta was pushed. */
  readonly afterFirstDelta: boolean;
}

/** What to send: resolved per call, so keys and base URLs are read at call time. */
export interface WireCall {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Runs one streamed call: `prepare` builds the request, `decoder` reads the answer. */
export async function* streamCall(
  provider: string,
  transport: HttpTransport,
  request: ModelRequest,
  prepare: () => Promise<WireCall>,
  decoder: WireDecoder,
): AsyncGenerator<StreamEvent> {
  const { url, headers, body } = await prepare();
  const res = await transport.post(url, headers, body, request.signal);
  const reader = openSse(provider, res, request.signal, () => decoder.afterFirstDelta);
  const out: StreamEvent[] = [];
  try {
    for (;;) {
      let batch: SseEvent[] | undefined;
      try {
        batch = await reader.next();
      } catch (err) {
        if (decoder.ended) return; // the answer was complete; a broken drain lost nothing
        throw err;
      }
      if (batch === undefined) break;
      let failure: unknown;
      for (let i = 0; i < batch.length && !decoder.ended; i++) {
        try {
          decoder.onEvent(batch[i], out);
        } catch (err) {
          failure = err;
          break;
        }
      }
      // Events completed before a failure are still delivered, so the caller sees what it was told.
      for (let i = 0; i < out.length; i++) yield out[i];
      out.length = 0;
      if (failure !== undefined) throw failure;
    }
    if (decoder.ended) return;
    if (!decoder.finish(out)) {
      throw streamError(
        provider,
        "the connection closed before the answer finished",
        decoder.afterFirstDelta,
      );
    }
    for (let i = 0; i < out.length; i++) yield out[i];
  } finally {
    reader.close();
  }
}
