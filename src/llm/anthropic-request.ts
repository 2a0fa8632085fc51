/**
 * Neutral request → Anthropic Messages API body. Prompt-cache breakpoints go on the system prompt and
 * on the last message, so each turn of a long session reads the previous turns from the cache.
 *
 * Thinking signatures: Anthropic verifies the signature on every thinking block sent back and refuses
 * the request (400) when one is not its own. A session that switched models holds thinking another
 * provider signed (Gemini's thought signatures, the Responses API's encrypted reasoning): that
 * reasoning goes as plain text instead (see `signedFor`). Claude's signatures are the same on the
 * Anthropic API, Bedrock and Vertex, so they go back to any Claude model wherever it is hosted.
 */
import { type JsonCache, objectJson, rawJson } from "./body-json.js";
import { hasTools } from "./request-tools.js";
import type { ContentBlock, Message, ModelRequest, ThinkingConfig, ToolDefinition } from "./types.js";

/** Whose thinking signatures a request can send back: `claude` for any Claude model, else the model's id. */
type Signer = string;

const DEFAULT_MAX_TOKENS = 8192;

/**
 * How a cloud that hosts Claude wants the Messages body: no `model` (it is in the URL), its own
 * `anthropic_version`, `stream` kept or dropped (Vertex keeps it, Bedrock's endpoint implies it), and
 * beta features in the body (`anthropic_beta`) instead of a header.
 */
export interface CloudBodyVariant {
  anthropicVersion: string;
  stream: boolean;
  betas?: readonly string[];
}

/** The Messages API body for a neutral request (exported for golden tests). */
export function anthropicRequestBody(
  request: ModelRequest,
  variant?: CloudBodyVariant,
): Record<string, unknown> {
  const signer = signerOf(request.model);
  const messages = request.messages.map((m) => wireMessage(m, signer));
  markLastBlockCached(messages);
  return bodyFields(request, messages, hasTools(request) ? request.tools.map(wireTool) : undefined, variant);
}

/**
 * The same body as JSON text, exactly `JSON.stringify(anthropicRequestBody(request))`, with the
 * messages before the last one and the tools taken from `cache` (see body-json.ts): a long session
 * re-encodes only what changed since its previous call.
 */
export function anthropicRequestJson(
  request: ModelRequest,
  cache: JsonCache,
  variant?: CloudBodyVariant,
): string {
  const n = request.messages.length;
  // A one-message request has nothing to reuse: one JSON.stringify is cheaper than the pieces.
  if (n <= 1) return JSON.stringify(anthropicRequestBody(request, variant));
  const signer = signerOf(request.model);
  let messages = cache.messages(request.messages, Math.max(0, n - 1), encoderFor(signer));
  // The last message carries the cache breakpoint, which moves every call: encoded fresh, never cached.
  if (n > 0) {
    const last = [wireMessage(request.messages[n - 1], signer)];
    markLastBlockCached(last);
    messages = n > 1 ? `${messages},${JSON.stringify(last[0])}` : JSON.stringify(last[0]);
  }
  const tools = hasTools(request)
    ? rawJson(`[${request.tools.map((t) => cache.tool(t, encodeTool)).join(",")}]`)
    : undefined;
  return objectJson(bodyFields(request, rawJson(`[${messages}]`), tools, variant));
}

/** The body's fields in wire order, with messages and tools already converted. */
function bodyFields(
  request: ModelRequest,
  messages: unknown,
  tools: unknown,
  variant?: CloudBodyVariant,
): Record<string, unknown> {
  const body: Record<string, unknown> = variant
    ? { anthropic_version: variant.anthropicVersion, max_tokens: request.maxTokens ?? DEFAULT_MAX_TOKENS }
    : { model: request.model, max_tokens: request.maxTokens ?? DEFAULT_MAX_TOKENS, stream: true };
  if (variant?.stream) body.stream = true;
  if (variant?.betas && variant.betas.length > 0) body.anthropic_beta = variant.betas;
  if (request.system)
    body.system = [{ type: "text", text: request.system, cache_control: { type: "ephemeral" } }];
  body.messages = messages;
  if (tools !== undefined) body.tools = tools;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.stopSequences && request.stopSequences.length > 0) body.stop_sequences = request.stopSequences;
  if (request.toolChoice) body.tool_choice = request.toolChoice;
  const thinking = wireThinking(requestThinking(request));
  if (thinking) body.thinking = thinking;
  if (request.effort) body.output_config = { effort: request.effort };
  return body;
}

/** The request's thinking: `thinking`, else the deprecated `thinkingBudget` as a fixed budget. */
export function requestThinking(request: ModelRequest): ThinkingConfig | undefined {
  if (request.thinking) return request.thinking;
  if (request.thinkingBudget && request.thinkingBudget > 0)
    return { type: "enabled", budgetTokens: request.thinkingBudget };
  return undefined;
}

/** Anthropic's `thinking` field (also the form LiteLLM passes through to Anthropic models). */
export function wireThinking(thinking: ThinkingConfig | undefined): Record<string, unknown> | undefined {
  if (!thinking) return undefined;
  if (thinking.type === "disabled") return { type: "disabled" };
  const out: Record<string, unknown> =
    thinking.type === "enabled"
      ? { type: "enabled", budget_tokens: thinking.budgetTokens }
      : { type: "adaptive" };
  if (thinking.display) out.display = thinking.display;
  return out;
}

function wireTool(t: ToolDefinition): Record<string, unknown> {
  return { name: t.name, description: t.description, input_schema: t.input_schema };
}

const encodeTool = (t: ToolDefinition): string => JSON.stringify(wireTool(t));

// One message encoder per signer, made once: the JSON cache keeps a message's piece per encoder, so a
// switch to a model that takes other signatures re-encodes the history rather than reusing it.
const encoders = new Map<Signer, (m: Message) => string>();
function encoderFor(signer: Signer): (m: Message) => string {
  let encode = encoders.get(signer);
  if (!encode) {
    encode = (m) => JSON.stringify(wireMessage(m, signer));
    encoders.set(signer, encode);
  }
  return encode;
}

function signerOf(model: string): Signer {
  return /claude/i.test(model) ? "claude" : model;
}

/**
 * Whether thinking written by `messageModel` (`provider/model`) carries signatures `signer` verifies:
 * Claude's wherever it ran, for a Claude model; the same model's, for another model on this wire (a
 * gateway's). A message that does not say which model wrote it is taken as this wire's, as before.
 */
function signedFor(messageModel: string | undefined, signer: Signer): boolean {
  if (messageModel === undefined) return true;
  if (signer === "claude") return /claude/i.test(messageModel);
  return messageModel === signer || messageModel.endsWith(`/${signer}`);
}

type WireMessage = { role: string; content: string | Record<string, unknown>[] };

function wireMessage(message: Message, signer: Signer): WireMessage {
  if (typeof message.content === "string") return { role: message.role, content: message.content };
  const own = message.role !== "assistant" || signedFor(message.model, signer);
  const content: Record<string, unknown>[] = [];
  for (const block of message.content) {
    const wire = own ? wireBlock(block) : foreignBlock(block);
    if (wire) content.push(wire);
  }
  return { role: message.role, content };
}

/**
 * A block another provider wrote: its thinking as plain text (the signature would be refused, and
 * unsigned thinking is refused too), its redacted thinking left out (nothing readable to keep).
 */
function foreignBlock(block: ContentBlock): Record<string, unknown> | undefined {
  if (block.type === "thinking")
    return block.thinking === "" ? undefined : { type: "text", text: block.thinking };
  if (block.type === "redacted_thinking") return undefined;
  return wireBlock(block);
}

function wireBlock(block: ContentBlock): Record<string, unknown> {
  if (block.type === "tool_use") {
    // parse_error / raw_input are ours; the API rejects unknown fields.
    return { type: "tool_use", id: block.id, name: block.name, input: block.input };
  }
  if (block.type === "tool_result") {
    const out: Record<string, unknown> = {
      type: "tool_result",
      tool_use_id: block.tool_use_id,
      content: block.content,
    };
    if (block.isError) out.is_error = true;
    return out;
  }
  if (block.type === "text") return { type: "text", text: block.text };
  return { ...block };
}

function markLastBlockCached(messages: WireMessage[]): void {
  const last = messages[messages.length - 1];
  if (!last) return;
  if (typeof last.content === "string") {
    if (last.content === "") return;
    last.content = [{ type: "text", text: last.content }];
  }
  const block = last.content[last.content.length - 1];
  // Thinking blocks cannot carry cache_control; an empty message has nothing to mark.
  if (block && block.type !== "thinking" && block.type !== "redacted_thinking") {
    block.cache_control = { type: "ephemeral" };
  }
}
