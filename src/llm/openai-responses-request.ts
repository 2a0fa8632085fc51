/**
 * Neutral request → OpenAI Responses API body (`POST /v1/responses`).
 *
 * Nothing is kept on OpenAI's side (`store: false`): the whole conversation goes as `input` items
 * each call, and the model's reasoning comes back encrypted (`include: ["reasoning.encrypted_content"]`)
 * and rides in the neutral thinking block's `signature` (the reasoning item as JSON), so the next turn
 * sends it back in place, before the calls it led to. That is why reasoning models use this wire:
 * Chat Completions has no way to carry reasoning between turns.
 */
import { requestThinking } from "./anthropic-request.js";
import { type JsonCache, objectJson, rawJson } from "./body-json.js";
import { hasTools } from "./request-tools.js";
import type {
  ContentBlock,
  EffortLevel,
  ImageBlock,
  Message,
  ModelRequest,
  TextBlock,
  ThinkingBlock,
  ToolChoice,
  ToolDefinition,
} from "./types.js";

type Item = Record<string, unknown>;

/** OpenAI's reasoning models by name: the o-series, GPT-5 and the Codex models. */
export function isOpenAIReasoningModel(model: string): boolean {
  return /^(?:o\d|gpt-5|codex|gpt-oss)/i.test(model);
}

/** Per-call settings the body needs besides the request. */
export interface ResponsesBodyOptions {
  /** `prompt_cache_key`: one per provider instance, i.e. per session, so its turns share a cache. */
  promptCacheKey?: string;
}

/** The Responses body for a neutral request. */
export function responsesRequestBody(
  request: ModelRequest,
  options: ResponsesBodyOptions = {},
): Record<string, unknown> {
  const input: Item[] = [];
  for (const m of request.messages) pushItems(input, m);
  return bodyFields(request, options, input, hasTools(request) ? request.tools.map(wireTool) : undefined);
}

/**
 * The same body as JSON text, `JSON.stringify(responsesRequestBody(…))` byte for byte, with the items
 * of earlier messages and the tools taken from `cache` (see body-json.ts).
 */
export function responsesRequestJson(
  request: ModelRequest,
  options: ResponsesBodyOptions,
  cache: JsonCache,
): string {
  if (request.messages.length <= 1) return JSON.stringify(responsesRequestBody(request, options));
  const input = cache.messages(request.messages, request.messages.length, encodeMessage);
  const tools = hasTools(request)
    ? rawJson(`[${request.tools.map((t) => cache.tool(t, encodeTool)).join(",")}]`)
    : undefined;
  return objectJson(bodyFields(request, options, rawJson(`[${input}]`), tools));
}

function bodyFields(
  request: ModelRequest,
  options: ResponsesBodyOptions,
  input: unknown,
  tools: unknown,
): Record<string, unknown> {
  const body: Record<string, unknown> = { model: request.model };
  if (request.system) body.instructions = request.system;
  body.input = input;
  body.stream = true;
  body.store = false;
  if (request.maxTokens !== undefined) body.max_output_tokens = request.maxTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (tools !== undefined) body.tools = tools;
  if (request.toolChoice) body.tool_choice = wireToolChoice(request.toolChoice);
  const effort = reasoningEffort(request);
  if (effort !== undefined) {
    body.reasoning = { effort, summary: "auto" };
    body.include = ["reasoning.encrypted_content"];
  }
  if (options.promptCacheKey) body.prompt_cache_key = options.promptCacheKey;
  return body;
}

/**
 * `reasoning.effort`: the `effort` option (`max` is OpenAI's `xhigh`), else the thinking option (a
 * fixed budget becomes the nearest effort, `disabled` the lowest), else the model's default for a
 * reasoning model, and nothing for the others (they reject the field).
 */
function reasoningEffort(request: ModelRequest): string | undefined {
  if (request.effort) return request.effort === "max" ? "xhigh" : request.effort;
  const thinking = requestThinking(request);
  if (thinking?.type === "enabled") return effortForBudget(thinking.budgetTokens);
  if (thinking?.type === "disabled") return isOpenAIReasoningModel(request.model) ? "minimal" : undefined;
  if (thinking?.type === "adaptive" || isOpenAIReasoningModel(request.model)) return "medium";
  return undefined;
}

function effortForBudget(budget: number): EffortLevel {
  if (budget < 2048) return "low";
  if (budget < 8192) return "medium";
  return "high";
}

function wireTool(t: ToolDefinition): Item {
  // strict: false, since strict mode rewrites what optional properties mean.
  return {
    type: "function",
    name: t.name,
    description: t.description,
    parameters: t.input_schema,
    strict: false,
  };
}

const encodeTool = (t: ToolDefinition): string => JSON.stringify(wireTool(t));

function encodeMessage(m: Message): string {
  const out: Item[] = [];
  pushItems(out, m);
  return out.map((item) => JSON.stringify(item)).join(",");
}

function wireToolChoice(choice: ToolChoice): unknown {
  switch (choice.type) {
    case "auto":
      return "auto";
    case "any":
      return "required";
    case "none":
      return "none";
    case "tool":
      return { type: "function", name: choice.name };
  }
}

/** The input items of one neutral message, in its block order. */
function pushItems(out: Item[], message: Message): void {
  if (typeof message.content === "string") {
    out.push({ role: message.role, content: message.content });
    return;
  }
  if (message.role === "assistant") {
    // A call's item id names its pairing with the reasoning before it: sent only with that reasoning
    // (the API refuses a paired call whose reasoning item is missing, e.g. after compaction).
    const reasoned = message.content.some((b) => b.type === "thinking" && reasoningItem(b) !== undefined);
    for (const block of message.content) pushAssistantBlock(out, block, reasoned);
    return;
  }
  const parts: Item[] = [];
  for (const block of message.content) {
    if (block.type === "tool_result") {
      out.push({ type: "function_call_output", call_id: block.tool_use_id, output: toolOutput(block) });
    } else if (block.type === "text") parts.push({ type: "input_text", text: block.text });
    else if (block.type === "image") parts.push(inputImage(block));
  }
  if (parts.length > 0) out.push({ role: "user", content: parts });
}

function pushAssistantBlock(out: Item[], block: ContentBlock, reasoned: boolean): void {
  if (block.type === "text") {
    if (block.text !== "") out.push({ role: "assistant", content: block.text });
  } else if (block.type === "thinking") {
    const item = reasoningItem(block);
    if (item) out.push(item);
  } else if (block.type === "tool_use") {
    const call: Item = { type: "function_call" };
    if (reasoned && block.signature?.startsWith("fc")) call.id = block.signature;
    call.call_id = block.id;
    call.name = block.name;
    call.arguments = block.raw_input ?? JSON.stringify(block.input);
    out.push(call);
  }
}

/** The reasoning item a thinking block carries, or undefined for thinking another wire wrote. */
function reasoningItem(block: ThinkingBlock): Item | undefined {
  const signature = block.signature;
  if (!signature?.startsWith('{"type":"reasoning"')) return undefined;
  try {
    return JSON.parse(signature) as Item;
  } catch {
    return undefined;
  }
}

/** A tool's result as `output`: text, or text and images as input parts. */
function toolOutput(block: { content: string | Array<TextBlock | ImageBlock>; isError?: boolean }): unknown {
  if (typeof block.content === "string") return errorMarked(block.content, block.isError);
  if (!block.content.some((b) => b.type === "image")) {
    const text = block.content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
    return errorMarked(text, block.isError);
  }
  const parts = block.content.map((b) =>
    b.type === "text" ? { type: "input_text", text: b.text } : inputImage(b),
  );
  if (block.isError) parts.unshift({ type: "input_text", text: "Error:" });
  return parts;
}

function errorMarked(text: string, isError: boolean | undefined): string {
  const body = text === "" ? "(no output)" : text;
  // The wire has no is_error flag: say it in the text so the model still knows.
  return isError && !/^error/i.test(body) ? `Error: ${body}` : body;
}

function inputImage(image: ImageBlock): Item {
  const src = image.source;
  const url = src.type === "url" ? src.url : `data:${src.media_type};base64,${src.data}`;
  return { type: "input_image", image_url: url, detail: "auto" };
}
