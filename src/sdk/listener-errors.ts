/**
 * Host callbacks that only listen (`onEvent`, `Agent.subscribe`, `Agent.onMessage`) must not be able
 * to break the session they listen to: a listener that throws is skipped for that event, the run goes
 * on, and the error is reported — to `onListenerError` when the host gave one (every time), otherwise
 * as a process warning (`GOAT_LISTENER_ERROR`, once per listener, so a broken listener does not flood
 * stderr). The Claude Agent SDK has no listeners (the host reads the message stream); pi's `Agent`
 * calls its subscribers inside the run, where a throw ends that run with an error.
 */

/** Receives the error a listener threw. */
export type ListenerErrorHandler = (error: unknown) => void;

/** Listeners that have thrown already, when reporting falls back to a once-only process warning. */
const warned = new WeakSet<object>();

/** Calls `listener(value)`; a throw is reported, never rethrown. */
export function callListener<T>(
  listener: (value: T) => void,
  value: T,
  onListenerError: ListenerErrorHandler | undefined,
): void {
  try {
    listener(value);
  } catch (error) {
    reportListenerError(listener, error, onListenerError);
  }
}

function reportListenerError(
  listener: object,
  error: unknown,
  onListenerError: ListenerErrorHandler | undefined,
): void {
  if (onListenerError) {
    try {
      onListenerError(error);
    } catch {
      // The error handler's own bug has nowhere further to go.
    }
    return;
  }
  if (warned.has(listener)) return;
  warned.add(listener);
  process.emitWarning(
    `A Goat event listener threw and was skipped (reported once per listener; pass onListenerError to see every one): ${error instanceof Error ? error.message : String(error)}`,
    { code: "GOAT_LISTENER_ERROR" },
  );
}
