import { describe, expect, it } from "vitest";
import { anthropicRequestBody, anthropicRequestJson } from "../../src/llm/anthropic.js";
import { converseRequestBody, converseRequestJson } from "../../src/llm/bedrock-converse.js";
import { createJsonCache } from "../../src/llm/body-json.js";
import { openaiRequestBody, openaiRequestJson } from "../../src/llm/openai-request.js";
import type { Message, ModelRequest } from "../../src/llm/types.js";

const schema = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };

function history(rounds: number): Message[] {
  const messages: Message[] = [{ role: "user", content: 'Start. Say "hi" \u2014 then call echo.' }];
  for (let n = 0; n < rounds; n++) {
    messages.push({
      role: "assistant",
      content: [
        { type: "thinking", thinking: `thought ${n}`, signature: `sig${n}` },
        { type: "text", text: `Calling echo ${n}.` },
        { type: "tool_use", id: `toolu_${n}`, name: "echo", input: { text: `ping ${n}` } },
      ],
      id: `msg_${n}`,
      model: "anthropic/x",
      stop_reason: "tool_use",
    });
    messages.push({
      role: "user",
      content: [
        n % 2 === 0
          ? { type: "tool_result", tool_use_id: `toolu_${n}`, content: `ping ${n}` }
          : {
              type: "tool_result",
              tool_use_id: `toolu_${n}`,
              content: [
                { type: "text", text: "line" },
                { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
              ],
              isError: true,
            },
      ],
    });
  }
  return messages;
}

function request(messages: Message[], extra: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: "claude-x",
    system: "You are terse.",
    messages,
    tools: [{ name: "echo", description: "Echoes.", input_schema: schema }],
    maxTokens: 1000,
    ...extra,
  };
}

describe("request bodies built from cached message JSON", () => {
  it("gives exactly JSON.stringify of the Anthropic body on every call of a growing session", () => {
    const cache = createJsonCache();
    const messages = history(0);
    for (let round = 0; round < 6; round++) {
      const req = request(messages, round % 2 ? { temperature: 0.3, stopSequences: ["END"] } : {});
      expect(anthropicRequestJson(req, cache)).toBe(JSON.stringify(anthropicRequestBody(req)));
      messages.push(...history(round + 1).slice(-2));
    }
    const bare: ModelRequest = {
      model: "m",
      messages: [{ role: "user", content: "" }],
      thinkingBudget: 2048,
    };
    expect(anthropicRequestJson(bare, cache)).toBe(JSON.stringify(anthropicRequestBody(bare)));
    const empty: ModelRequest = { model: "m", messages: [], toolChoice: { type: "any" } };
    expect(anthropicRequestJson(empty, cache)).toBe(JSON.stringify(anthropicRequestBody(empty)));
  });

  it("gives exactly JSON.stringify of the Bedrock Converse body, with and without cache points", () => {
    for (const model of [
      "us.amazon.nova-pro-v1:0",
      "anthropic.claude-3-7-sonnet-20250219-v1:0",
      "meta.llama3",
    ]) {
      const cache = createJsonCache();
      const messages = history(0);
      for (let round = 0; round < 5; round++) {
        const req = request(messages, { model, toolChoice: { type: "any" } });
        expect(converseRequestJson(req, cache)).toBe(JSON.stringify(converseRequestBody(req)));
        messages.push(...history(round + 1).slice(-2));
      }
      const bare: ModelRequest = { model, messages: [{ role: "user", content: "" }] };
      expect(converseRequestJson(bare, cache)).toBe(JSON.stringify(converseRequestBody(bare)));
    }
  });

  it("gives exactly JSON.stringify of the OpenAI body, for the official API and gateways", () => {
    const cache = createJsonCache();
    const messages = [...history(3), { role: "user", content: [] } as Message];
    for (const official of [true, false, true]) {
      const req = request(messages, { toolChoice: { type: "tool", name: "echo" } });
      expect(openaiRequestJson(req, official, cache)).toBe(JSON.stringify(openaiRequestBody(req, official)));
    }
    const noSystem: ModelRequest = { model: "m", messages: [{ role: "user", content: [] }] };
    expect(openaiRequestJson(noSystem, false, cache)).toBe(
      JSON.stringify(openaiRequestBody(noSystem, false)),
    );
  });

  it("sends an old message's in-place edits and replacements, not the cached bytes", () => {
    const cache = createJsonCache();
    const messages = history(4);
    const req = request(messages);
    anthropicRequestJson(req, cache);
    openaiRequestJson(req, false, createJsonCache());

    // A transform that prunes old tool output in place, and one that swaps a block's text.
    const result = (messages[2].content as Array<{ content: unknown }>)[0];
    result.content = "[pruned]";
    (messages[3].content as Array<{ type: string; text?: string }>)[1].text = "edited";
    // A replaced message at the same position (what the loop does to a cut-off answer).
    messages[5] = { role: "assistant", content: [{ type: "text", text: "(output cut off)" }] };
    const body = anthropicRequestJson(req, cache);
    expect(body).toBe(JSON.stringify(anthropicRequestBody(req)));
    expect(body).toContain("[pruned]");
    expect(body).toContain("edited");
    expect(body).toContain("(output cut off)");
  });

  it("stays exact when the history is rewritten (compaction drops the front)", () => {
    const cache = createJsonCache();
    const messages = history(5);
    anthropicRequestJson(request(messages), cache);
    const compacted: Message[] = [
      { role: "user", content: "Summary of earlier work." },
      ...messages.slice(5),
    ];
    const req = request(compacted);
    expect(anthropicRequestJson(req, cache)).toBe(JSON.stringify(anthropicRequestBody(req)));
  });

  it("encodes each unchanged message once across calls, by position or after positions moved", () => {
    const cache = createJsonCache();
    const messages = history(3);
    let encoded = 0;
    const encode = (m: Message) => {
      encoded++;
      return JSON.stringify(m);
    };
    cache.messages(messages, messages.length, encode);
    expect(encoded).toBe(7);
    messages.push(...history(4).slice(-2));
    const joined = cache.messages(messages, messages.length, encode);
    expect(encoded).toBe(9);
    expect(joined).toBe(messages.map((m) => JSON.stringify(m)).join(","));
    expect(cache.messages(messages.slice(2), messages.length - 2, encode)).toBe(
      messages
        .slice(2)
        .map((m) => JSON.stringify(m))
        .join(","),
    );
    expect(encoded).toBe(9);
    // Shorter than last time (a rewind): the text is rebuilt from what is still there.
    expect(cache.messages(messages.slice(2), 3, encode)).toBe(
      messages
        .slice(2, 5)
        .map((m) => JSON.stringify(m))
        .join(","),
    );
    expect(encoded).toBe(9);
  });

  it("re-encodes a tool whose name or description changed while its schema object stayed", () => {
    const cache = createJsonCache();
    const encode = (t: { name: string; description: string }) => `${t.name}:${t.description}`;
    expect(cache.tool({ name: "a", description: "one", input_schema: schema }, encode)).toBe("a:one");
    expect(cache.tool({ name: "a", description: "two", input_schema: schema }, encode)).toBe("a:two");
    expect(cache.tool({ name: "b", description: "two", input_schema: schema }, encode)).toBe("b:two");
  });
});
