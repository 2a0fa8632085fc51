/**
 * The OpenAI Responses API's streamed events, as far as the decoder (openai-responses.ts) reads them.
 * The JSON is not validated against these types (a check per token would cost): they say what the API
 * documents, and the decoder guards what a broken server could leave out. Other events are skipped.
 */

/** An output item, as `response.output_item.added` opens it and `response.output_item.done` ends it. */
export type ResponsesOutputItem =
  | {
      type: "reasoning";
      id?: string;
      summary?: unknown[];
      /** The model's reasoning, encrypted, when `include: ["reasoning.encrypted_content"]` asked for it. */
      encrypted_content?: string | null;
    }
  | { type: "function_call"; id?: string; call_id: string; name: string; arguments?: string }
  | { type: "message"; id?: string };

/** An error, in `response.failed`'s response or as the `error` event itself. */
export interface ResponsesError {
  message?: string;
  code?: string | null;
  type?: string;
}

/** Token counts; cached input is counted inside `input_tokens`, reasoning inside `output_tokens`. */
export interface ResponsesUsage {
  input_tokens?: number;
  output_tokens?: number;
  input_tokens_details?: { cached_tokens?: number } | null;
  output_tokens_details?: { reasoning_tokens?: number } | null;
}

/** The response object of `response.completed` and `response.incomplete`. */
export interface ResponsesResponse {
  id?: string;
  usage?: ResponsesUsage | null;
  incomplete_details?: { reason?: string } | null;
  error?: ResponsesError | null;
}

/** One `data:` payload of the stream. */
export type ResponsesStreamEvent =
  | { type: "response.created"; response?: { id?: string } }
  | {
      type: "response.output_item.added" | "response.output_item.done";
      output_index: number;
      item?: ResponsesOutputItem;
    }
  | { type: "response.output_text.delta" | "response.refusal.delta"; output_index: number; delta: string }
  | {
      type: "response.reasoning_summary_text.delta";
      output_index: number;
      summary_index?: number;
      delta: string;
    }
  | { type: "response.function_call_arguments.delta"; output_index: number; delta: string }
  | { type: "response.completed" | "response.incomplete" | "response.failed"; response?: ResponsesResponse }
  | ({ type: "error" } & ResponsesError);
