/**
 * A stall limit that measures the other side, not this process's own queueing.
 *
 * A plain `setTimeout` is checked in the event loop's timers phase, which runs before the poll phase
 * that reads sockets. When the process has been busy for longer than the limit (thousands of sessions
 * answered in one poll phase, a long garbage collection, a synchronous burst at start-up), the answer
 * it waits for can already sit unread in the socket when the timer fires, and a plain timer would
 * call a provider that answered in time stalled. Measured: 10,000 concurrent sessions on 2 cores held
 * the event loop for up to a minute at a time, and every first call of 3,000 sessions "timed out" on a
 * server that had answered.
 *
 * So an expired limit is only a stall once the I/O that arrived meanwhile has been read: the verdict
 * waits for one `setImmediate`, which runs after the poll phase of the same loop turn, and is dropped
 * when `refresh()` (progress) or `clear()` came in between. The cost over a plain timer is one counter
 * increment per `refresh()` and one immediate per expiry.
 */

/** A running stall limit. */
export interface StallTimer {
  /** Progress was seen: the limit starts over from now (also after it expired unconfirmed). */
  refresh(): void;
  /** Stops the limit for good; a verdict already pending is dropped. */
  clear(): void;
}

/**
 * Starts a limit of `ms` milliseconds that calls `onStall` once when no `refresh()` came for that
 * long, counting only time in which this process could have seen progress (see the module comment).
 * Example: `const t = startStallTimer(60_000, () => res.destroy(err)); res.on("data", () => t.refresh());`
 */
export function startStallTimer(ms: number, onStall: () => void): StallTimer {
  let progress = 0;
  let cleared = false;
  const timer = setTimeout(() => {
    const seen = progress;
    setImmediate(() => {
      if (!cleared && progress === seen) {
        cleared = true;
        onStall();
      }
    });
  }, ms);
  return {
    refresh() {
      if (cleared) return;
      progress++;
      timer.refresh();
    },
    clear() {
      cleared = true;
      clearTimeout(timer);
    },
  };
}
