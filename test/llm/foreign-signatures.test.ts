/**
 * A session that switched models holds thinking other providers signed. Each wire sends back only the
 * signatures its server can verify (Anthropic refuses the whole request on a foreign one); the rest of
 * the reasoning goes as text (Anthropic) or is left out (Gemini, Responses), never as a signature.
 */
import { describe, expect, it } from "vitest";
import { anthropicRequestBody, anthropicRequestJson } from "../../src/llm/anthropic-request.js";
import { createJsonCache } from "../../src/llm/body-json.js";
import { geminiRequestBody } from "../../src/llm/gemini-request.js";
import { responsesRequestBody } from "../../src/llm/openai-responses-request.js";
import type { Message, ModelRequest } from "../../src/llm/types.js";

const GEMINI_SIG = "R2VtaW5pIHRob3VnaHQ=";
const RESPONSES_SIG = JSON.stringify({
  type: "reasoning",
  id: "rs_1",
  encrypted_content: "OPENAI-ENCRYPTED",
  summary: [],
});
const CLAUDE_SIG = "EqQBCkgIARABGAIiQClaudeSig==";
const BEDROCK_CLAUDE_SIG = "EqQBCkgIARABGAIiQBedrockSig==";
const GATEWAY_SIG = "minimax-own-signature";

/** Turns by Gemini, the Responses API, a gateway model, Claude on Bedrock and Claude, in that order. */
const HISTORY: Message[] = [
  { role: "user", content: "Look at /a." },
  {
    role: "assistant",
    model: "gemini/gemini-2.5-pro",
    content: [
      { type: "thinking", thinking: "Gemini thought.", signature: GEMINI_SIG },
      { type: "tool_use", id: "call_g", name: "Read", input: { file_path: "/a" }, signature: GEMINI_SIG },
    ],
  },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "call_g", content: "a" }] },
  {
    role: "assistant",
    model: "openai/gpt-5",
    content: [
      { type: "thinking", thinking: "OpenAI thought.", signature: RESPONSES_SIG },
      { type: "text", text: "Read it." },
    ],
  },
  { role: "user", content: "And now?" },
  {
    role: "assistant",
    model: "minimax/MiniMax-M2",
    content: [
      { type: "thinking", thinking: "Gateway thought.", signature: GATEWAY_SIG },
      { type: "text", text: "Gateway answer." },
    ],
  },
  { role: "user", content: "Again." },
  {
    role: "assistant",
    model: "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    content: [
      { type: "thinking", thinking: "Bedrock Claude thought.", signature: BEDROCK_CLAUDE_SIG },
      { type: "redacted_thinking", data: "REDACTED-BY-CLAUDE" },
      { type: "text", text: "Bedrock answer." },
    ],
  },
  { role: "user", content: "Once more." },
  {
    role: "assistant",
    model: "anthropic/claude-sonnet-4-5",
    content: [
      { type: "thinking", thinking: "Claude thought.", signature: CLAUDE_SIG },
      { type: "text", text: "Claude answer." },
    ],
  },
  { role: "user", content: "Last question." },
];

const request = (model: string): ModelRequest => ({ model, maxTokens: 100, messages: HISTORY });

/** Every block of every assistant message of an Anthropic body, thinking and text only. */
function assistantBlocks(body: any): Array<[string, string, string?]> {
  return body.messages
    .filter((m: any) => m.role === "assistant")
    .flatMap((m: any) => m.content)
    .flatMap((b: any) =>
      b.type === "thinking"
        ? [[b.type, b.thinking, b.signature]]
        : b.type === "redacted_thinking"
          ? [[b.type, b.data]]
          : b.type === "text"
            ? [[b.type, b.text]]
            : [],
    );
}

const CLAUDE_SEES = [
  ["text", "Gemini thought."],
  ["text", "OpenAI thought."],
  ["text", "Read it."],
  ["text", "Gateway thought."],
  ["text", "Gateway answer."],
  ["thinking", "Bedrock Claude thought.", BEDROCK_CLAUDE_SIG],
  ["redacted_thinking", "REDACTED-BY-CLAUDE"],
  ["text", "Bedrock answer."],
  ["thinking", "Claude thought.", CLAUDE_SIG],
  ["text", "Claude answer."],
];

const VARIANTS = {
  anthropic: undefined,
  bedrock: { anthropicVersion: "bedrock-2023-05-31", stream: false },
  vertex: { anthropicVersion: "vertex-2023-10-16", stream: true },
} as const;

describe("thinking another provider signed", () => {
  it.each(Object.entries(VARIANTS))(
    "the Anthropic wire (%s) sends Claude's signatures back and other providers' reasoning as text",
    (_name, variant) => {
      for (const model of ["claude-sonnet-4-5", "us.anthropic.claude-opus-4-1-20250805-v1:0"]) {
        const json = anthropicRequestJson(request(model), createJsonCache(), variant);
        expect(assistantBlocks(JSON.parse(json))).toEqual(CLAUDE_SEES);
        expect(assistantBlocks(anthropicRequestBody(request(model), variant))).toEqual(CLAUDE_SEES);
        for (const foreign of [GEMINI_SIG, "OPENAI-ENCRYPTED", GATEWAY_SIG])
          expect(json).not.toContain(foreign);
      }
    },
  );

  it("a gateway model on the Anthropic wire gets back only its own signatures, even from a warm cache", () => {
    const cache = createJsonCache();
    // The same provider instance (one cache) first asked Claude, then the gateway's model.
    anthropicRequestJson(request("claude-sonnet-4-5"), cache);
    const body = JSON.parse(anthropicRequestJson(request("MiniMax-M2"), cache));
    const thinking = assistantBlocks(body).filter((b) => b[0] === "thinking");
    expect(thinking).toEqual([["thinking", "Gateway thought.", GATEWAY_SIG]]);
    expect(JSON.stringify(body)).not.toContain(CLAUDE_SIG);
    expect(JSON.stringify(body)).not.toContain("REDACTED-BY-CLAUDE");
  });

  it("the Responses wire sends only its own encrypted reasoning, never a signature as encrypted_content", () => {
    const body = responsesRequestBody(request("gpt-5")) as { input: any[] };
    const reasoning = body.input.filter((item) => item.type === "reasoning");
    expect(reasoning).toEqual([JSON.parse(RESPONSES_SIG)]);
    const text = JSON.stringify(body);
    for (const foreign of [GEMINI_SIG, CLAUDE_SIG, BEDROCK_CLAUDE_SIG, GATEWAY_SIG])
      expect(text).not.toContain(foreign);
  });

  it("the Gemini wire sends only Gemini's thought signatures", () => {
    const body = geminiRequestBody(request("gemini-2.5-pro")) as { contents: any[] };
    const signed = body.contents.flatMap((c) => c.parts).filter((p: any) => p.thoughtSignature);
    expect(signed.map((p: any) => p.thoughtSignature)).toEqual([GEMINI_SIG, GEMINI_SIG]);
    const text = JSON.stringify(body);
    for (const foreign of [CLAUDE_SIG, BEDROCK_CLAUDE_SIG, GATEWAY_SIG, "OPENAI-ENCRYPTED"])
      expect(text).not.toContain(foreign);
  });
});
