/**
 * Neutral request → Gemini `GenerateContentRequest` body, the same for the Gemini API
 * (`generativelanguage.googleapis.com`) and Gemini on Vertex AI (which only differ in URL and auth).
 *
 * Thought signatures: Gemini signs its reasoning on the parts it returns (a function call's part, a
 * text part, a thought part) and requires them back on the same parts, or it rejects the function
 * call turn (Gemini 3) or loses its reasoning (2.5). The decoder keeps each signature on the neutral
 * block of its part (`signature`), and this mapper puts it back on that block's part.
 */
import { requestThinking } from "./anthropic-request.js";
import { type JsonCache, objectJson, rawJson } from "./body-json.js";
import { hasTools } from "./request-tools.js";
import type {
  ContentBlock,
  ImageBlock,
  Message,
  ModelRequest,
  TextBlock,
  ToolChoice,
  ToolDefinition,
  ToolResultBlock,
} from "./types.js";

type Part = Record<string, unknown>;

/** The prefix of the call ids the decoder makes up when Gemini gives none (not sent back). */
export const GEMINI_SYNTHETIC_ID = "gemini_call_";

/** The body for a neutral request (exported for golden tests). */
export function geminiRequestBody(request: ModelRequest): Record<string, unknown> {
  const names = toolNames(request.messages);
  const contents = request.messages.flatMap((m) => {
    const c = wireContent(m, names);
    return c ? [c] : [];
  });
  return bodyFields(request, contents, hasTools(request) ? request.tools.map(wireTool) : undefined);
}

/** A body encoder with its cache (one per provider instance): `JSON.stringify(geminiRequestBody(r))`. */
export function createGeminiRequestJson(cache: JsonCache): (request: ModelRequest) => string {
  // A function response must name its function, which lives on the call in the message before:
  // the names of the request's calls, read before its messages are encoded.
  let names = new Map<string, string>();
  const encode = (m: Message): string => {
    const c = wireContent(m, names);
    return c ? JSON.stringify(c) : "";
  };
  const encodeTool = (t: ToolDefinition): string => JSON.stringify(wireTool(t));
  return (request) => {
    if (request.messages.length <= 1) return JSON.stringify(geminiRequestBody(request));
    names = toolNames(request.messages);
    const contents = cache.messages(request.messages, request.messages.length, encode);
    const tools = hasTools(request)
      ? rawJson(`[${request.tools.map((t) => cache.tool(t, encodeTool)).join(",")}]`)
      : undefined;
    return objectJson(bodyFields(request, rawJson(`[${contents}]`), tools));
  };
}

function bodyFields(
  request: ModelRequest,
  contents: unknown,
  declarations: unknown,
): Record<string, unknown> {
  const body: Record<string, unknown> = { contents };
  if (request.system) body.systemInstruction = { parts: [{ text: request.system }] };
  if (declarations !== undefined) body.tools = [{ functionDeclarations: declarations }];
  if (request.toolChoice) body.toolConfig = { functionCallingConfig: wireToolChoice(request.toolChoice) };
  const config: Record<string, unknown> = {};
  if (request.maxTokens !== undefined) config.maxOutputTokens = request.maxTokens;
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.stopSequences && request.stopSequences.length > 0) config.stopSequences = request.stopSequences;
  const thinking = thinkingConfig(request);
  if (thinking) config.thinkingConfig = thinking;
  if (Object.keys(config).length > 0) body.generationConfig = config;
  return body;
}

/**
 * `thinkingConfig`: a fixed budget as `thinkingBudget`, adaptive as `-1` (dynamic), disabled as 0;
 * `includeThoughts` so the thought summaries stream as thinking. Effort maps to a budget.
 */
function thinkingConfig(request: ModelRequest): Record<string, unknown> | undefined {
  const thinking = requestThinking(request);
  if (thinking?.type === "disabled") return { thinkingBudget: 0 };
  if (thinking?.type === "enabled") return { thinkingBudget: thinking.budgetTokens, includeThoughts: true };
  if (thinking?.type === "adaptive") return { thinkingBudget: -1, includeThoughts: true };
  if (request.effort) return { thinkingBudget: EFFORT_BUDGET[request.effort], includeThoughts: true };
  return undefined;
}

const EFFORT_BUDGET: Record<string, number> = {
  minimal: 512,
  low: 1024,
  medium: 8192,
  high: 24_576,
  xhigh: 32_768,
  max: 32_768,
};

function wireTool(t: ToolDefinition): Part {
  // parametersJsonSchema takes JSON Schema as is; `parameters` takes only an OpenAPI subset.
  return { name: t.name, description: t.description, parametersJsonSchema: t.input_schema };
}

function wireToolChoice(choice: ToolChoice): Record<string, unknown> {
  switch (choice.type) {
    case "auto":
      return { mode: "AUTO" };
    case "any":
      return { mode: "ANY" };
    case "none":
      return { mode: "NONE" };
    case "tool":
      return { mode: "ANY", allowedFunctionNames: [choice.name] };
  }
}

/** Tool-call id → function name, over the whole conversation. */
function toolNames(messages: Message[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of messages) {
    if (m.role !== "assistant" || typeof m.content === "string") continue;
    for (const b of m.content) if (b.type === "tool_use") names.set(b.id, b.name);
  }
  return names;
}

function wireContent(message: Message, names: Map<string, string>): Part | undefined {
  const role = message.role === "assistant" ? "model" : "user";
  if (typeof message.content === "string") {
    return message.content === "" ? undefined : { role, parts: [{ text: message.content }] };
  }
  const parts: Part[] = [];
  // Signatures another provider wrote (a session that switched models) would be refused: left out.
  const ownSignatures = message.role !== "assistant" || !message.model || /gemini/i.test(message.model);
  for (const block of message.content) pushPart(parts, ownSignatures ? block : unsigned(block), names);
  return parts.length > 0 ? { role, parts } : undefined;
}

/** The block without its signature (a thinking block without one is not sent at all). */
function unsigned(block: ContentBlock): ContentBlock {
  if ((block.type === "text" || block.type === "tool_use" || block.type === "thinking") && block.signature) {
    const { signature: _, ...rest } = block;
    return rest as ContentBlock;
  }
  return block;
}

function pushPart(parts: Part[], block: ContentBlock, names: Map<string, string>): void {
  switch (block.type) {
    case "text":
      if (block.text !== "" || block.signature) parts.push(signed({ text: block.text }, block.signature));
      return;
    case "thinking":
      // Thoughts go back only with their signature (that is what carries the reasoning).
      if (block.signature && isGeminiSignature(block.signature))
        parts.push({ text: block.thinking, thought: true, thoughtSignature: block.signature });
      return;
    case "tool_use": {
      const call: Record<string, unknown> = { name: block.name, args: block.input };
      if (!block.id.startsWith(GEMINI_SYNTHETIC_ID)) call.id = block.id;
      parts.push(signed({ functionCall: call }, block.signature));
      return;
    }
    case "tool_result":
      parts.push(...functionResponse(block, names));
      return;
    case "image":
      parts.push(imagePart(block));
      return;
    default:
      return; // redacted thinking is Anthropic's; Gemini has no place for it
  }
}

/** A part with its thought signature, when the signature is Gemini's (base64, not another wire's). */
function signed(part: Part, signature: string | undefined): Part {
  if (signature && isGeminiSignature(signature)) part.thoughtSignature = signature;
  return part;
}

function isGeminiSignature(signature: string): boolean {
  return /^[A-Za-z0-9+/_-]+=*$/.test(signature);
}

/** A tool result as a `functionResponse` part (its images follow as inline parts). */
function functionResponse(block: ToolResultBlock, names: Map<string, string>): Part[] {
  const content = block.content;
  const text =
    typeof content === "string"
      ? content
      : content
          .filter((b): b is TextBlock => b.type === "text")
          .map((b) => b.text)
          .join("\n");
  const response: Record<string, unknown> = { name: names.get(block.tool_use_id) ?? "unknown_tool" };
  if (!block.tool_use_id.startsWith(GEMINI_SYNTHETIC_ID)) response.id = block.tool_use_id;
  response.response = block.isError ? { error: text } : { output: text };
  const parts: Part[] = [{ functionResponse: response }];
  if (typeof content !== "string") {
    for (const b of content) if (b.type === "image") parts.push(imagePart(b));
  }
  return parts;
}

function imagePart(image: ImageBlock): Part {
  const src = image.source;
  if (src.type === "base64") return { inlineData: { mimeType: src.media_type, data: src.data } };
  return { fileData: { mimeType: mimeOfUrl(src.url), fileUri: src.url } };
}

function mimeOfUrl(url: string): string {
  const ext = /\.(png|gif|webp|jpe?g)(?:$|\?)/i.exec(url)?.[1]?.toLowerCase();
  return ext === "png"
    ? "image/png"
    : ext === "gif"
      ? "image/gif"
      : ext === "webp"
        ? "image/webp"
        : "image/jpeg";
}
