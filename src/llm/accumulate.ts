/**
 * Consumes a model stream to its end and returns the final assistant message, for callers that only
 * want the answer (and maybe a callback per event for a UI).
 */
import { ProviderError } from "./errors.js";
import type { AssistantMessage, ModelStream, StreamEvent } from "./types.js";

/**
 * Runs the stream to completion, calling `onEvent` for each event, and returns the message carried by
 * `message_end`. Throws what the stream throws, or a `stream` ProviderError when it ends without one.
 */
export async function accumulate(
  stream: ModelStream,
  onEvent?: (event: StreamEvent) => void,
): Promise<AssistantMessage> {
  let message: AssistantMessage | undefined;
  let sawDelta = false;
  // Iterate to the very end even after message_end: the provider drains the body so its socket is reused.
  for await (const event of stream) {
    if (event.type === "message_end") message = event.message;
    else if (event.type.endsWith("_delta")) sawDelta = true;
    onEvent?.(event);
  }
  if (!message) {
    throw new ProviderError({
      kind: "stream",
      provider: "unknown",
      afterFirstDelta: sawDelta,
      message: "the model stream ended without a final message",
    });
  }
  return message;
}
