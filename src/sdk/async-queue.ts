/**
 * A push-based async queue: producers `push`, one consumer iterates. Used for the SDK message stream
 * and for multi-turn user input, where the producer and the consumer run at their own pace.
 */

/** A queue that can be iterated once with `for await`. */
export interface AsyncQueue<T> extends AsyncIterable<T> {
  push(item: T): void;
  /** Ends the iteration once the items already pushed are consumed. */
  close(): void;
  readonly closed: boolean;
  /** Items pushed and not yet taken. */
  readonly size: number;
  /** Resolves once at most `count` items wait (at once when that is already so, or once closed). */
  whenAtMost(count: number): Promise<void>;
  /** Waits for the next item; undefined once closed and drained. */
  next(): Promise<T | undefined>;
}

/** Creates an empty queue. */
export function createAsyncQueue<T>(): AsyncQueue<T> {
  const items: T[] = [];
  let head = 0;
  let closed = false;
  let waiter: ((v: T | undefined) => void) | undefined;
  // A producer waiting for the consumer to catch up (backpressure), and the size it waits for.
  let drain: { count: number; resolve: () => void } | undefined;
  const checkDrain = () => {
    if (drain && (items.length - head <= drain.count || closed)) {
      const d = drain;
      drain = undefined;
      d.resolve();
    }
  };

  const next = (): Promise<T | undefined> => {
    if (head < items.length) {
      const item = items[head++];
      if (head > 1024 && head * 2 > items.length) {
        items.splice(0, head);
        head = 0;
      }
      if (drain) checkDrain();
      return Promise.resolve(item);
    }
    if (closed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      waiter = resolve;
    });
  };

  return {
    push(item) {
      if (closed) return;
      if (waiter) {
        const w = waiter;
        waiter = undefined;
        w(item);
      } else items.push(item);
    },
    close() {
      closed = true;
      checkDrain();
      if (waiter && head >= items.length) {
        const w = waiter;
        waiter = undefined;
        w(undefined);
      }
    },
    get closed() {
      return closed;
    },
    get size() {
      return items.length - head;
    },
    whenAtMost(count) {
      if (items.length - head <= count || closed) return Promise.resolve();
      // One producer waits at a time (the loop); a second caller shares the wait, at the lower count.
      const previous = drain;
      return new Promise((resolve) => {
        drain = {
          count: previous ? Math.min(previous.count, count) : count,
          resolve: () => {
            previous?.resolve();
            resolve();
          },
        };
      });
    },
    next,
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const item = await next();
        if (item === undefined && closed && head >= items.length) return;
        yield item as T;
      }
    },
  };
}
