/**
 * The options of `query()` and `Agent` (the Claude Agent SDK's `Options`): the session's options
 * (`runtime/options.ts`) and the few that only the SDK surface reads: the raw stream events, the
 * event listeners, telemetry.
 */
import type { SessionOptions } from "../runtime/options.js";
import type { AgentEventListener } from "../runtime/session.js";
import type { TelemetryOption } from "../telemetry/option.js";

/** Everything `query()` accepts. All optional. */
export interface QueryOptions extends SessionOptions {
  /** Emit `stream_event` messages with the raw stream. */
  includePartialMessages?: boolean;
  /** Receives every agent event (the fine-grained stream) besides the SDK messages. */
  onEvent?: AgentEventListener;
  /**
   * Receives what a listener threw (`onEvent`, and an `Agent`'s `subscribe` / `onMessage` listeners).
   * A throwing listener never breaks the run; without this, each one is reported once as a process
   * warning (`GOAT_LISTENER_ERROR`).
   */
  onListenerError?: (error: unknown) => void;
  /**
   * OpenTelemetry spans (GenAI conventions) for each run, model call and tool call. On by default when
   * the host has registered a tracer provider; `false` turns them off; `{ recordContent: true }` adds
   * prompts, answers and tool input/output to the spans.
   */
  telemetry?: TelemetryOption;
}

/** The Claude Agent SDK's name for `QueryOptions`, so code written for it type-checks unchanged. */
export type Options = QueryOptions;
