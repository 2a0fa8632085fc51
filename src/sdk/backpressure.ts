/**
 * Backpressure for the SDK message stream: a host that reads `query()` slowly must not make Goat
 * buffer a whole streamed answer (with `includePartialMessages`, one message per delta). While more
 * than `HIGH_WATER` messages wait, the model's stream is not read further (`runtime/paced-model-caller.ts`),
 * until the host has taken the buffer down to `LOW_WATER`; the unread answer then waits in the socket,
 * and TCP slows the provider down. A fast reader pays one size check per stream event.
 */

import type { StreamPace } from "../runtime/paced-model-caller.js";
import type { AsyncQueue } from "./async-queue.js";

/** Messages waiting for the host before the model's stream is paused. */
export const HIGH_WATER = 1024;
/** Messages left waiting when the stream is read again. */
const LOW_WATER = 256;

/** The pace of a reader of `output`: lagging above `HIGH_WATER` messages, caught up at `LOW_WATER`. */
export function readerPace(output: AsyncQueue<unknown>): StreamPace {
  return {
    lagging: () => output.size > HIGH_WATER,
    caughtUp: () => output.whenAtMost(LOW_WATER),
  };
}
