/**
 * The OpenAI Chat Completions stream's chunks, as far as the decoder (openai.ts) reads them, with the
 * fields the compatible servers add (DeepSeek's and vLLM's `reasoning_content`, OpenRouter's and
 * Ollama's `reasoning`, LiteLLM's `thinking_blocks`). The JSON is not validated against these types
 * (a check per token would cost): the decoder guards every field a server could leave out or mistype.
 */

/** One piece of a streamed tool call; parallel calls are told apart by `id` or `index`. */
export interface OpenAIToolCallDelta {
  index?: number;
  id?: string;
  type?: "function";
  function?: {
    name?: string;
    /** A string of JSON per the API; some gateways send the parsed object instead. */
    arguments?: unknown;
  };
}

/** What one chunk adds to the answer. */
interface OpenAIChunkDelta {
  role?: string;
  content?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  thinking_blocks?: Array<{ type?: string; thinking?: string; signature?: unknown } | null>;
  tool_calls?: OpenAIToolCallDelta[];
}

/** Token counts (the last chunk's, with `stream_options.include_usage`). */
export interface OpenAIUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  /** Anthropic-style counts some gateways (LiteLLM) pass through. */
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

/** One `data:` payload of the stream (the `[DONE]` marker is handled before parsing). */
export interface OpenAIChunk {
  id?: string;
  choices?: Array<{ index?: number; delta?: OpenAIChunkDelta; finish_reason?: string | null }>;
  usage?: OpenAIUsage | null;
  /** An error sent in-band: an object with `message` and `code` or `type`, or a bare string. */
  error?: unknown;
}
