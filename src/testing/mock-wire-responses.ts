/**
 * Renders a scripted reply as the OpenAI Responses API streams it: named SSE events
 * (`response.created`, `response.output_item.added`, the text / reasoning-summary / function-argument
 * deltas, `response.output_item.done` with each item's final form, then `response.completed` or
 * `response.incomplete` with the usage). Checked against the official `openai` client
 * (test/llm/official/).
 */
import type { MessageReply, MockBlock } from "./mock-replies.js";
import { argumentsOf, pieces, stopOf, toolId, usageOf } from "./reply-parts.js";

type Item = Record<string, unknown>;

/** The Responses SSE events of a reply, one string per event. */
export function responsesEvents(r: MessageReply, model: string): string[] {
  const u = usageOf(r);
  const size = r.chunkSize ?? 8;
  const id = r.id ?? "resp_mock01";
  let seq = 0;
  const out: string[] = [];
  const emit = (type: string, data: Record<string, unknown>): void => {
    out.push(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
  };
  const response = (status: string, output: Item[], extra: Record<string, unknown> = {}) => ({
    id,
    object: "response",
    created_at: 1_700_000_000,
    status,
    model,
    output,
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    ...extra,
  });
  emit("response.created", { response: response("in_progress", []) });
  emit("response.in_progress", { response: response("in_progress", []) });
  const done: Item[] = [];
  r.content.forEach((b, i) => {
    const item = itemEvents(b, i, size, emit);
    if (item) done.push(item);
  });
  if (r.streamError) {
    const at = r.streamError.afterEvents ?? out.length;
    out.splice(at, out.length - at);
    emit("error", { code: r.streamError.type, message: r.streamError.message, param: null });
    return out;
  }
  const usage = {
    input_tokens: u.input + u.cacheRead,
    input_tokens_details: { cached_tokens: u.cacheRead },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
    total_tokens: u.input + u.cacheRead + u.output,
  };
  const stop = stopOf(r);
  if (stop === "max_tokens" || stop === "refusal") {
    const reason = stop === "max_tokens" ? "max_output_tokens" : "content_filter";
    emit("response.incomplete", {
      response: response("incomplete", done, { incomplete_details: { reason }, usage }),
    });
  } else emit("response.completed", { response: response("completed", done, { usage }) });
  return out;
}

/** The events of one output item; returns its final form. */
function itemEvents(
  b: MockBlock,
  i: number,
  size: number,
  emit: (type: string, data: Record<string, unknown>) => void,
): Item | undefined {
  const output_index = i;
  if (b.type === "thinking") {
    const id = `rs_mock${i}`;
    emit("response.output_item.added", { output_index, item: { id, type: "reasoning", summary: [] } });
    const part = { type: "summary_text", text: "" };
    emit("response.reasoning_summary_part.added", { item_id: id, output_index, summary_index: 0, part });
    for (const p of pieces(b.thinking, size))
      emit("response.reasoning_summary_text.delta", {
        item_id: id,
        output_index,
        summary_index: 0,
        delta: p,
      });
    emit("response.reasoning_summary_text.done", {
      item_id: id,
      output_index,
      summary_index: 0,
      text: b.thinking,
    });
    const summary = [{ type: "summary_text", text: b.thinking }];
    emit("response.reasoning_summary_part.done", {
      item_id: id,
      output_index,
      summary_index: 0,
      part: summary[0],
    });
    const item = { id, type: "reasoning", summary, encrypted_content: b.signature ?? "enc-mock" };
    emit("response.output_item.done", { output_index, item });
    return item;
  }
  if (b.type === "text") {
    const id = `msg_mock${i}`;
    const base = { id, type: "message", role: "assistant" };
    emit("response.output_item.added", {
      output_index,
      item: { ...base, status: "in_progress", content: [] },
    });
    const where = { item_id: id, output_index, content_index: 0 };
    emit("response.content_part.added", {
      ...where,
      part: { type: "output_text", text: "", annotations: [] },
    });
    for (const p of pieces(b.text, size))
      emit("response.output_text.delta", { ...where, delta: p, logprobs: [] });
    emit("response.output_text.done", { ...where, text: b.text, logprobs: [] });
    const part = { type: "output_text", text: b.text, annotations: [] };
    emit("response.content_part.done", { ...where, part });
    const item = { ...base, status: "completed", content: [part] };
    emit("response.output_item.done", { output_index, item });
    return item;
  }
  if (b.type === "tool_use") {
    const id = `fc_mock${i}`;
    const call_id = toolId(b, i, "call_mock");
    const args = argumentsOf(b);
    const base = { id, type: "function_call", call_id, name: b.name };
    emit("response.output_item.added", {
      output_index,
      item: { ...base, status: "in_progress", arguments: "" },
    });
    for (const p of pieces(args, size))
      emit("response.function_call_arguments.delta", { item_id: id, output_index, delta: p });
    emit("response.function_call_arguments.done", { item_id: id, output_index, arguments: args });
    const item = { ...base, status: "completed", arguments: args };
    emit("response.output_item.done", { output_index, item });
    return item;
  }
  return undefined; // redacted thinking is Anthropic's
}
