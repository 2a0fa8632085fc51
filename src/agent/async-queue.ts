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
  /** Waits for the next item; undefined once closed and drained. */
  next(): Promise<T | undefined>;
}

/** Creates an empty queue. */
export function createAsyncQueue<T>(): AsyncQueue<T> {
  const items: T[] = [];
  let head = 0;
  let closed = false;
  let waiter: ((v: T | undefined) => void) | undefined;

  const next = (): Promise<T | undefined> => {
    if (head < items.length) {
      const item = items[head++];
      if (head > 1024 && head * 2 > items.length) {
        items.splice(0, head);
        head = 0;
      }
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
      if (waiter && head >= items.length) {
        const w = waiter;
        waiter = undefined;
        w(undefined);
      }
    },
    get closed() {
      return closed;
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
