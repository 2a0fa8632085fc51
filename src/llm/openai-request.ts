/**
 * Neutral request → OpenAI Chat Completions body. The shapes are those every compatible gateway
 * accepts (LiteLLM, vLLM, Ollama, llama.cpp): one `tool` message per tool_result right after the
 * assistant message that asked for it, never an array of results inside a user message.
 */
import { requestThinking, wireThinking } from "./anthropic-request.js";
import { type JsonCache, objectJson, rawJson } from "./body-json.js";
import { hasTools } from "./request-tools.js";
import type {
  ContentBlock,
  EffortLevel,
  ImageBlock,
  Message,
  ModelRequest,
  TextBlock,
  ThinkingConfig,
  ToolChoice,
  ToolDefinition,
} from "./types.js";

type WireMessage = Record<string, unknown>;
type Part = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };

/**
 * The Chat Completions body for a neutral request. `officialApi` selects `max_completion_tokens`
 * (OpenAI's reasoning models reject `max_tokens`); gateways get `max_tokens`, which all of them accept.
 */
export function openaiRequestBody(request: ModelRequest, officialApi: boolean): Record<string, unknown> {
  const messages: WireMessage[] = [];
  if (request.system) messages.push({ role: "system", content: request.system });
  for (const m of request.messages) pushMessage(messages, m, !officialApi);
  return bodyFields(
    request,
    officialApi,
    messages,
    hasTools(request) ? request.tools.map(wireTool) : undefined,
  );
}

/**
 * The same body as JSON text, exactly `JSON.stringify(openaiRequestBody(request, officialApi))`, with
 * the messages and tools taken from `cache` (see body-json.ts): a long session re-encodes only what
 * changed since its previous call.
 */
export function openaiRequestJson(request: ModelRequest, officialApi: boolean, cache: JsonCache): string {
  // A one-message request has nothing to reuse: one JSON.stringify is cheaper than the pieces.
  if (request.messages.length <= 1) return JSON.stringify(openaiRequestBody(request, officialApi));
  let messages = cache.messages(
    request.messages,
    request.messages.length,
    officialApi ? encodeMessage : encodeGatewayMessage,
  );
  if (request.system) {
    const system = JSON.stringify({ role: "system", content: request.system });
    messages = messages === "" ? system : `${system},${messages}`;
  }
  const tools = hasTools(request)
    ? rawJson(`[${request.tools.map((t) => cache.tool(t, encodeTool)).join(",")}]`)
    : undefined;
  return objectJson(bodyFields(request, officialApi, rawJson(`[${messages}]`), tools));
}

/** The body's fields in wire order, with messages and tools already converted. */
function bodyFields(
  request: ModelRequest,
  officialApi: boolean,
  messages: unknown,
  tools: unknown,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: request.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.maxTokens !== undefined)
    body[officialApi ? "max_completion_tokens" : "max_tokens"] = request.maxTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.stopSequences && request.stopSequences.length > 0) body.stop = request.stopSequences;
  if (tools !== undefined) body.tools = tools;
  if (request.toolChoice) body.tool_choice = wireToolChoice(request.toolChoice);
  addReasoning(body, request, officialApi);
  return body;
}

/**
 * Thinking and effort. OpenAI's API takes only `reasoning_effort` (a fixed thinking budget becomes the
 * nearest effort). Gateways get `reasoning_effort` when an effort is asked for, and the thinking
 * setting in Anthropic's form, `thinking: { type, budget_tokens }`, which LiteLLM documents and passes
 * on to Anthropic models (servers that do not know it ignore it).
 */
function addReasoning(body: Record<string, unknown>, request: ModelRequest, officialApi: boolean): void {
  const thinking = requestThinking(request);
  if (officialApi) {
    const effort = request.effort ?? effortForBudget(thinking);
    if (effort) body.reasoning_effort = effort === "max" ? "xhigh" : effort;
    return;
  }
  if (request.effort) body.reasoning_effort = request.effort;
  const wire = wireThinking(thinking);
  if (wire) body.thinking = wire;
}

/** The effort closest to a fixed thinking budget (LiteLLM maps low/medium/high to 1k/2k/4k tokens). */
function effortForBudget(thinking: ThinkingConfig | undefined): EffortLevel | undefined {
  if (thinking?.type !== "enabled") return undefined;
  if (thinking.budgetTokens < 2048) return "low";
  if (thinking.budgetTokens < 8192) return "medium";
  return "high";
}

function wireTool(t: ToolDefinition): WireMessage {
  return {
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.input_schema },
  };
}

const encodeTool = (t: ToolDefinition): string => JSON.stringify(wireTool(t));

/** The wire messages one neutral message becomes (none, one, or one per tool result), comma-joined. */
function encodeMessage(m: Message): string {
  const out: WireMessage[] = [];
  pushMessage(out, m, false);
  return out.map((w) => JSON.stringify(w)).join(",");
}

/** The same for a gateway, whose assistant messages carry signed thinking back (see assistantMessage). */
function encodeGatewayMessage(m: Message): string {
  const out: WireMessage[] = [];
  pushMessage(out, m, true);
  return out.map((w) => JSON.stringify(w)).join(",");
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
      return { type: "function", function: { name: choice.name } };
  }
}

function pushMessage(out: WireMessage[], message: Message, gateway: boolean): void {
  if (typeof message.content === "string") {
    out.push({ role: message.role, content: message.content });
    return;
  }
  if (message.role === "assistant") {
    out.push(assistantMessage(message.content, gateway));
    return;
  }
  // Tool results first (they must follow the assistant's tool_calls), then the user's own parts.
  const parts: Part[] = [];
  const resultImages: Part[] = [];
  for (const block of message.content) {
    if (block.type === "tool_result") {
      const images = Array.isArray(block.content)
        ? block.content.filter((b): b is ImageBlock => b.type === "image")
        : [];
      out.push({
        role: "tool",
        tool_call_id: block.tool_use_id,
        content: toolResultText(block, images.length),
      });
      if (images.length > 0) {
        resultImages.push({ type: "text", text: `Image output of tool call ${block.tool_use_id}:` });
        for (const image of images) resultImages.push(imagePart(image));
      }
    } else if (block.type === "text") {
      parts.push({ type: "text", text: block.text });
    } else if (block.type === "image") {
      parts.push(imagePart(block));
    }
  }
  const all = [...resultImages, ...parts];
  if (all.length === 0) return;
  // Plain text goes as a string: a few older servers accept only that.
  const textOnly = all.every((p) => p.type === "text");
  out.push({
    role: "user",
    content: textOnly ? all.map((p) => (p as { text: string }).text).join("\n") : all,
  });
}

function toolResultText(
  block: { content: string | Array<TextBlock | ImageBlock>; isError?: boolean },
  imageCount: number,
): string {
  let text =
    typeof block.content === "string"
      ? block.content
      : block.content
          .filter((b): b is TextBlock => b.type === "text")
          .map((b) => b.text)
          .join("\n");
  if (text === "") text = imageCount > 0 ? "(image output follows)" : "(no output)";
  // Chat Completions has no is_error flag: say it in the text so the model still knows.
  if (block.isError && !/^error/i.test(text)) text = `Error: ${text}`;
  return text;
}

function assistantMessage(content: ContentBlock[], gateway: boolean): WireMessage {
  const text = content
    .filter((b): b is TextBlock => b.type === "text")
    .map((b) => b.text)
    .join("");
  const toolCalls = content.flatMap((b) =>
    b.type === "tool_use"
      ? [{ id: b.id, type: "function", function: { name: b.name, arguments: JSON.stringify(b.input) } }]
      : [],
  );
  const out: WireMessage = { role: "assistant", content: text === "" && toolCalls.length > 0 ? null : text };
  if (toolCalls.length > 0) out.tool_calls = toolCalls;
  // Chat Completions has no field for thinking; LiteLLM takes signed thinking back as `thinking_blocks`
  // (Anthropic needs it with tool calls). OpenAI's own API never signs thinking, so it gets none.
  if (gateway) {
    const signed = content.flatMap(
      (b): Array<Record<string, string>> =>
        b.type === "thinking" && b.signature
          ? [{ type: "thinking", thinking: b.thinking, signature: b.signature }]
          : b.type === "redacted_thinking"
            ? [{ type: "redacted_thinking", data: b.data }]
            : [],
    );
    if (signed.length > 0) out.thinking_blocks = signed;
  }
  return out;
}

function imagePart(image: ImageBlock): Part {
  const src = image.source;
  const url = src.type === "url" ? src.url : `data:${src.media_type};base64,${src.data}`;
  return { type: "image_url", image_url: { url } };
}
