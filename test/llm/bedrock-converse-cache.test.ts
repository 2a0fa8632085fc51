/**
 * Prompt caching on Bedrock's Converse API: `cachePoint` blocks where the Anthropic body puts its
 * cache breakpoints (after the system prompt, the last message and, for Claude, the last tool), only
 * for the models that take them, and the cache's token counts read back from the stream's usage.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accumulate } from "../../src/llm/accumulate.js";
import { createBedrockProvider } from "../../src/llm/bedrock.js";
import { converseRequestBody } from "../../src/llm/bedrock-converse.js";
import type { ModelRequest } from "../../src/llm/types.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());

const env = { AWS_ACCESS_KEY_ID: "AKIDCACHE", AWS_SECRET_ACCESS_KEY: "secret", AWS_REGION: "us-east-1" };
const CACHE_POINT = { cachePoint: { type: "default" } };

const request = (model: string): ModelRequest => ({
  model,
  system: "You are terse.",
  maxTokens: 100,
  tools: [{ name: "Read", description: "Reads a file", input_schema: { type: "object" } }],
  messages: [
    { role: "user", content: "Read /a." },
    {
      role: "assistant",
      content: [{ type: "tool_use", id: "tooluse_1", name: "Read", input: { file_path: "/a" } }],
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "tooluse_1", content: "a" }] },
  ],
});

/** Where the body holds cache points: `system`, `tools`, `message N` (by index). */
function cachePoints(body: any): string[] {
  const at: string[] = [];
  if (body.system?.some((b: any) => b.cachePoint)) at.push("system");
  if (body.toolConfig?.tools.some((t: any) => t.cachePoint)) at.push("tools");
  body.messages.forEach((m: any, i: number) => {
    if (m.content.some((b: any) => b.cachePoint)) at.push(`message ${i}`);
  });
  return at;
}

describe("Bedrock Converse prompt caching", () => {
  it("marks Nova's system prompt and last message, and reports the cache's reads and writes", async () => {
    const bedrock = createBedrockProvider({ baseURL: mock.bedrockBaseURL, env });
    try {
      mock.enqueue(reply.text("ok", { usage: { input: 12, output: 3, cacheRead: 900, cacheWrite: 150 } }));
      const answer = await accumulate(bedrock.stream(request("us.amazon.nova-pro-v1:0")));
      const body = mock.requests.at(-1)?.body;
      expect(mock.requests.at(-1)?.format).toBe("bedrock-converse");
      expect(cachePoints(body)).toEqual(["system", "message 2"]);
      // Each mark comes last in its list, after what it caches.
      expect(body.system.at(-1)).toEqual(CACHE_POINT);
      expect(body.messages[2].content.at(-1)).toEqual(CACHE_POINT);
      expect(body.messages[2].content[0].toolResult.toolUseId).toBe("tooluse_1");
      expect(answer.usage).toMatchObject({
        input_tokens: 12,
        output_tokens: 3,
        cache_read_input_tokens: 900,
        cache_creation_input_tokens: 150,
      });
    } finally {
      bedrock.close?.();
    }
  });

  it("sends no cache point to a model that does not take them", async () => {
    const bedrock = createBedrockProvider({ baseURL: mock.bedrockBaseURL, env });
    try {
      mock.enqueue(reply.text("ok"));
      await accumulate(bedrock.stream(request("meta.llama3-3-70b-instruct-v1:0")));
      expect(cachePoints(mock.requests.at(-1)?.body)).toEqual([]);
    } finally {
      bedrock.close?.();
    }
  });

  it("marks the tools too for Claude on Converse, and leaves an empty last message unmarked", () => {
    const claude = converseRequestBody(request("anthropic.claude-3-7-sonnet-20250219-v1:0"));
    expect(cachePoints(claude)).toEqual(["system", "tools", "message 2"]);
    expect((claude.toolConfig as any).tools.at(-1)).toEqual(CACHE_POINT);
    const empty = converseRequestBody({
      model: "amazon.nova-lite-v1:0",
      messages: [{ role: "user", content: [{ type: "text", text: "" }] }],
    });
    expect(cachePoints(empty)).toEqual([]);
  });
});
