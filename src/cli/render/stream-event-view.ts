/**
 * The model's streamed events (`stream_event` messages) on screen: the answer's text into the
 * markdown preview, thinking into the thinking view, and the status line kept in step (shown while
 * waiting, hidden while text streams), with the call's tokens counted as they stream.
 */

import { terminalSafe } from "../terminal/safe-text.js";
import type { AnswerPrinter } from "./answer-printer.js";
import type { ModelWait } from "./model-wait.js";
import type { StatusLine } from "./status-line.js";
import type { ThinkingView } from "./thinking-view.js";
import type { TurnTokens } from "./turn-tokens.js";

/** The fields of the Anthropic stream events the view reads (the SDK types them `unknown`). */
export type StreamEvent = {
  type?: string;
  index?: number;
  message?: { usage?: Record<string, number> };
  content_block?: { type?: string };
  delta?: { type?: string; text?: string; thinking?: string; partial_json?: string };
  usage?: { output_tokens?: number };
};

/** Shows streamed events; says what streamed, so the whole message shows only what did not. */
export interface StreamEventView {
  show(event: StreamEvent): void;
  /** Whether answer text, and thinking, streamed since the last `messageEnded`. */
  readonly streamedText: boolean;
  readonly streamedThinking: boolean;
  /** The model's whole message arrived: what streams next belongs to the next one. */
  messageEnded(): void;
}

/** The renderer's parts the view drives. */
export interface StreamEventParts {
  status: StatusLine;
  wait: ModelWait;
  thinking: ThinkingView;
  answer: AnswerPrinter;
  tokens: TurnTokens;
}

/** Creates the view over the renderer's `parts`. */
export function createStreamEventView(parts: StreamEventParts): StreamEventView {
  const { status, wait, thinking, tokens } = parts;
  const markdown = parts.answer.stream;
  let streamedText = false;
  let streamedThinking = false;

  const startThinking = () => {
    streamedThinking = true;
    thinking.start();
    if (!thinking.expanded) status.show("Thinking…");
  };

  const delta = (d: NonNullable<StreamEvent["delta"]>) => {
    if (d.type === "text_delta" && d.text) {
      if (thinking.active) thinking.end();
      streamedText = true;
      tokens.streamed(d.text.length);
      status.hide();
      markdown.push(terminalSafe(d.text));
    } else if (d.type === "thinking_delta" && d.thinking) {
      if (!thinking.active) startThinking();
      tokens.streamed(d.thinking.length);
      // Shown in full, the thinking streams where the answer does; collapsed, the status line stays.
      if (thinking.expanded) status.hide();
      thinking.push(terminalSafe(d.thinking));
    } else if (d.type === "input_json_delta" && d.partial_json) {
      tokens.streamedToolInput(d.partial_json.length);
    }
  };

  const show = (e: StreamEvent) => {
    if (e.type === "message_stop") wait.done();
    else if (wait.heard()) status.show("Thinking…");
    if (e.type === "message_start") tokens.callStarted(e.message?.usage ?? {});
    else if (e.type === "message_delta") tokens.callOutput(e.usage?.output_tokens);
    else if (e.type === "content_block_start") {
      const type = e.content_block?.type;
      if (type === "thinking") startThinking();
      else if (type === "redacted_thinking") {
        streamedThinking = true;
        thinking.redacted();
      }
    } else if (e.type === "content_block_stop") {
      if (thinking.active) thinking.end();
      if (markdown.active) markdown.end();
    } else if (e.type === "content_block_delta" && e.delta) delta(e.delta);
  };

  return {
    show,
    get streamedText() {
      return streamedText;
    },
    get streamedThinking() {
      return streamedThinking;
    },
    messageEnded() {
      streamedText = false;
      streamedThinking = false;
    },
  };
}
