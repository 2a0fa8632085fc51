/**
 * The token counts the status line shows during a turn: the finished model calls' tokens, plus the
 * call streaming now, its output estimated from the characters streamed until the provider counts it.
 */
import type { StatusLine } from "./status-line.js";

/** Input token counts as a call's usage reports them (cache reads and writes apart). */
export interface InputUsage {
  input_tokens?: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/** A turn's running token counts, shown on the status line as they change. */
export interface TurnTokens {
  /** A model call started with this input. */
  callStarted(usage: InputUsage): void;
  /** The provider counted the call's output so far. */
  callOutput(tokens: number | undefined): void;
  /** The call streamed this many characters (text, thinking or tool input). */
  streamed(chars: number): void;
  /** Tool input streamed: its characters count, and the line is updated at once. */
  streamedToolInput(chars: number): void;
  /** A call ended with these counts. */
  callEnded(usage: InputUsage & { output_tokens: number }): void;
  /** The turn ended: counts start again from zero. */
  reset(): void;
}

/** All of a call's input tokens, cached or not. */
export function inputTokens(u: InputUsage): number {
  return (u.input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
}

/** Creates the counts of one turn at a time, shown through `status`. */
export function createTurnTokens(status: StatusLine): TurnTokens {
  let turnIn = 0;
  let turnOut = 0;
  let callIn = 0;
  let callChars = 0;
  let callOut = 0;
  const update = () => status.tokens(turnIn + callIn, turnOut + (callOut || Math.round(callChars / 4)));
  return {
    callStarted(usage) {
      callIn = inputTokens(usage);
      callChars = 0;
      callOut = 0;
      update();
    },
    callOutput(tokens) {
      callOut = tokens ?? callOut;
      update();
    },
    streamed(chars) {
      callChars += chars;
    },
    streamedToolInput(chars) {
      callChars += chars;
      update();
    },
    callEnded(usage) {
      turnIn += inputTokens(usage);
      turnOut += usage.output_tokens;
      callIn = callChars = callOut = 0;
      update();
    },
    reset() {
      turnIn = turnOut = callIn = callChars = callOut = 0;
    },
  };
}
