/**
 * The interactive prompt's input: lines typed at the prompt become user messages of one long
 * `query()`, through this push-based AsyncIterable.
 */
import type { SDKUserMessageInput } from "../index.js";

/** A queue of user messages that `query()` reads as its prompt. */
export interface InputQueue extends AsyncIterable<SDKUserMessageInput> {
  push(text: string): void;
  /** Queues a whole user message (stream-json input, where content may be blocks). */
  pushMessage(message: SDKUserMessageInput): void;
  /** Ends the input: the query finishes its current run and ends. */
  close(): void;
}

/** Creates an empty queue. */
export function createInputQueue(): InputQueue {
  const items: SDKUserMessageInput[] = [];
  let waiting: ((r: IteratorResult<SDKUserMessageInput>) => void) | undefined;
  let closed = false;
  const pushMessage = (message: SDKUserMessageInput) => {
    if (closed) return;
    if (waiting) {
      const w = waiting;
      waiting = undefined;
      w({ value: message, done: false });
    } else items.push(message);
  };
  return {
    push(text) {
      pushMessage({ type: "user", message: { role: "user", content: text } });
    },
    pushMessage,
    close() {
      closed = true;
      if (waiting) waiting({ value: undefined, done: true });
      waiting = undefined;
    },
    [Symbol.asyncIterator]() {
      return {
        next: () => {
          const item = items.shift();
          if (item) return Promise.resolve({ value: item, done: false });
          if (closed) return Promise.resolve({ value: undefined, done: true });
          return new Promise((resolve) => {
            waiting = resolve;
          });
        },
      };
    },
  };
}
