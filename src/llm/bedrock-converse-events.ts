/**
 * Bedrock ConverseStream's event payloads, by event name (the name travels in the frame's headers,
 * not in the JSON), as far as the decoder (bedrock-converse.ts) reads them. The JSON is not validated
 * against these types (a check per token would cost): the decoder guards what a server could omit.
 */

/** Token counts, in the `metadata` event that follows `messageStop`. */
export interface ConverseUsage {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
}

/** Each ConverseStream event's JSON payload, keyed by its `:event-type`. */
export interface ConverseEvents {
  messageStart: { role?: string };
  contentBlockStart: {
    contentBlockIndex: number;
    start?: { toolUse?: { toolUseId: string; name: string } };
  };
  contentBlockDelta: {
    contentBlockIndex: number;
    delta?: {
      text?: string;
      reasoningContent?: { text?: string; signature?: string };
      toolUse?: { input?: string };
    };
  };
  contentBlockStop: { contentBlockIndex: number };
  messageStop: { stopReason: string };
  metadata: { usage?: ConverseUsage };
}
