/** Golden request bodies and headers: what each provider puts on the wire for one rich conversation. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { accumulate } from "../../src/llm/accumulate.js";
import { createAnthropicProvider } from "../../src/llm/anthropic.js";
import { createOpenAIProvider } from "../../src/llm/openai.js";
import type { ModelRequest } from "../../src/llm/types.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider({ whenEmpty: reply.text("ok") });
});
afterAll(() => mock.close());

const PNG = { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } as const;

/** A conversation with every kind of block: images, thinking, parallel tool calls, an error result. */
const CONVERSATION: ModelRequest = {
  model: "m-1",
  system: "You are terse.",
  maxTokens: 1000,
  temperature: 0.5,
  stopSequences: ["###"],
  toolChoice: { type: "auto" },
  thinkingBudget: 2048,
  headers: { "x-request-tag": "t1" },
  tools: [
    {
      name: "Read",
      description: "Reads a file",
      input_schema: {
        type: "object",
        properties: { file_path: { type: "string" } },
        required: ["file_path"],
      },
    },
  ],
  messages: [
    {
      role: "user",
      content: [
        { type: "text", text: "What is in this picture and in /a?" },
        { type: "image", source: PNG },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Need to read.", signature: "sig-1" },
        { type: "text", text: "Reading." },
        { type: "tool_use", id: "call_1", name: "Read", input: { file_path: "/a" } },
        {
          type: "tool_use",
          id: "call_2",
          name: "Read",
          input: {},
          parse_error: "invalid JSON",
          raw_input: "{bad",
        },
      ],
    },
    {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "call_1",
          content: [
            { type: "text", text: "A" },
            { type: "image", source: PNG },
          ],
        },
        { type: "tool_result", tool_use_id: "call_2", content: "file_path is required", isError: true },
        { type: "text", text: "Go on." },
      ],
    },
  ],
};

describe("Anthropic request", () => {
  afterEach(() => {
    delete process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_BASE_URL;
  });

  it("sends the golden Messages body with cache breakpoints on the system prompt and the last block", async () => {
    const provider = createAnthropicProvider({
      baseURL: mock.anthropicBaseURL,
      apiKey: "key-1",
      headers: { "x-extra": "e" },
    });
    await accumulate(provider.stream(CONVERSATION));
    const req = mock.requests.at(-1)!;
    expect(req.path).toBe("/v1/messages");
    expect(req.headers).toMatchObject({
      "x-api-key": "key-1",
      "anthropic-version": "2023-06-01",
      "x-extra": "e",
      "x-request-tag": "t1",
      "content-type": "application/json",
    });
    expect(req.body).toEqual({
      model: "m-1",
      max_tokens: 1000,
      stream: true,
      system: [{ type: "text", text: "You are terse.", cache_control: { type: "ephemeral" } }],
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is in this picture and in /a?" },
            { type: "image", source: PNG },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Need to read.", signature: "sig-1" },
            { type: "text", text: "Reading." },
            { type: "tool_use", id: "call_1", name: "Read", input: { file_path: "/a" } },
            { type: "tool_use", id: "call_2", name: "Read", input: {} },
          ],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "call_1",
              content: [
                { type: "text", text: "A" },
                { type: "image", source: PNG },
              ],
            },
            { type: "tool_result", tool_use_id: "call_2", content: "file_path is required", is_error: true },
            { type: "text", text: "Go on.", cache_control: { type: "ephemeral" } },
          ],
        },
      ],
      tools: [
        { name: "Read", description: "Reads a file", input_schema: CONVERSATION.tools![0].input_schema },
      ],
      temperature: 0.5,
      stop_sequences: ["###"],
      tool_choice: { type: "auto" },
      thinking: { type: "enabled", budget_tokens: 2048 },
    });
  });

  it("does not mutate the caller's messages when adding cache_control", async () => {
    const messages: ModelRequest["messages"] = [{ role: "user", content: [{ type: "text", text: "hi" }] }];
    await accumulate(
      createAnthropicProvider({ baseURL: mock.anthropicBaseURL }).stream({ model: "m", messages }),
    );
    expect(messages[0].content).toEqual([{ type: "text", text: "hi" }]);
    expect(mock.requests.at(-1)!.body.messages[0].content[0].cache_control).toEqual({ type: "ephemeral" });
  });

  it("defaults max_tokens to 8192 and resolves key and base URL from the environment at call time", async () => {
    const provider = createAnthropicProvider();
    process.env.ANTHROPIC_API_KEY = "env-key";
    process.env.ANTHROPIC_BASE_URL = mock.anthropicBaseURL;
    await accumulate(provider.stream({ model: "m", messages: [{ role: "user", content: "x" }] }));
    const req = mock.requests.at(-1)!;
    expect(req.headers["x-api-key"]).toBe("env-key");
    expect(req.body.max_tokens).toBe(8192);
  });

  it("sends ANTHROPIC_AUTH_TOKEN as a bearer token when there is no key (gateways)", async () => {
    const savedKey = process.env.ANTHROPIC_API_KEY;
    const savedToken = process.env.ANTHROPIC_AUTH_TOKEN;
    delete process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_AUTH_TOKEN = "gateway-token";
    try {
      const provider = createAnthropicProvider({ baseURL: mock.anthropicBaseURL });
      await accumulate(provider.stream({ model: "m", messages: [{ role: "user", content: "x" }] }));
      const req = mock.requests.at(-1)!;
      expect(req.headers.authorization).toBe("Bearer gateway-token");
      expect(req.headers["x-api-key"]).toBeUndefined();
    } finally {
      if (savedKey === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = savedKey;
      if (savedToken === undefined) delete process.env.ANTHROPIC_AUTH_TOKEN;
      else process.env.ANTHROPIC_AUTH_TOKEN = savedToken;
    }
  });

  it("asks getApiKey before each request and prefers its answer to apiKey", async () => {
    let n = 0;
    const provider = createAnthropicProvider({
      baseURL: mock.anthropicBaseURL,
      apiKey: "static",
      getApiKey: async () => `rotated-${++n}`,
    });
    await accumulate(provider.stream({ model: "m", messages: [{ role: "user", content: "x" }] }));
    await accumulate(provider.stream({ model: "m", messages: [{ role: "user", content: "x" }] }));
    expect(mock.requests.slice(-2).map((r) => r.headers["x-api-key"])).toEqual(["rotated-1", "rotated-2"]);
  });
});

describe("OpenAI request", () => {
  afterEach(() => {
    delete process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_BASE_URL;
  });

  it("sends the golden Chat Completions body: one tool message per result, images after them", async () => {
    const provider = createOpenAIProvider({ baseURL: mock.openaiBaseURL, apiKey: "key-2" });
    await accumulate(provider.stream(CONVERSATION));
    const req = mock.requests.at(-1)!;
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.headers).toMatchObject({ authorization: "Bearer key-2", "x-request-tag": "t1" });
    const dataUrl = `data:image/png;base64,${PNG.data}`;
    expect(req.body).toEqual({
      model: "m-1",
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 1000,
      temperature: 0.5,
      stop: ["###"],
      tool_choice: "auto",
      // A gateway gets the thinking setting in Anthropic's form, which LiteLLM passes on.
      thinking: { type: "enabled", budget_tokens: 2048 },
      tools: [
        {
          type: "function",
          function: {
            name: "Read",
            description: "Reads a file",
            parameters: CONVERSATION.tools![0].input_schema,
          },
        },
      ],
      messages: [
        { role: "system", content: "You are terse." },
        {
          role: "user",
          content: [
            { type: "text", text: "What is in this picture and in /a?" },
            { type: "image_url", image_url: { url: dataUrl } },
          ],
        },
        {
          role: "assistant",
          content: "Reading.",
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "Read", arguments: '{"file_path":"/a"}' } },
            { id: "call_2", type: "function", function: { name: "Read", arguments: "{}" } },
          ],
          // Signed thinking goes back to a gateway as LiteLLM's thinking_blocks.
          thinking_blocks: [{ type: "thinking", thinking: "Need to read.", signature: "sig-1" }],
        },
        { role: "tool", tool_call_id: "call_1", content: "A" },
        { role: "tool", tool_call_id: "call_2", content: "Error: file_path is required" },
        {
          role: "user",
          content: [
            { type: "text", text: "Image output of tool call call_1:" },
            { type: "image_url", image_url: { url: dataUrl } },
            { type: "text", text: "Go on." },
          ],
        },
      ],
    });
  });

  it.each([
    [{ type: "any" }, "required"],
    [{ type: "none" }, "none"],
    [
      { type: "tool", name: "Read" },
      { type: "function", function: { name: "Read" } },
    ],
  ] as const)("maps tool choice %j", async (choice, wire) => {
    await accumulate(
      createOpenAIProvider({ baseURL: mock.openaiBaseURL }).stream({
        model: "m",
        messages: [{ role: "user", content: "x" }],
        toolChoice: choice,
      }),
    );
    expect(mock.requests.at(-1)!.body.tool_choice).toEqual(wire);
  });

  it("sends assistant tool calls without text as content null, and no key header when there is no key", async () => {
    await accumulate(
      createOpenAIProvider({ baseURL: mock.openaiBaseURL }).stream({
        model: "m",
        messages: [
          { role: "user", content: "x" },
          { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "T", input: { a: 1 } }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "c1", content: "" }] },
        ],
      }),
    );
    const req = mock.requests.at(-1)!;
    expect(req.headers.authorization).toBeUndefined();
    expect(req.body.messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "T", arguments: '{"a":1}' } }],
      },
      { role: "tool", tool_call_id: "c1", content: "(no output)" },
    ]);
  });

  it("resolves key and base URL from OPENAI_API_KEY and OPENAI_BASE_URL at call time", async () => {
    const provider = createOpenAIProvider({ name: "litellm" });
    process.env.OPENAI_API_KEY = "env-key";
    process.env.OPENAI_BASE_URL = mock.openaiBaseURL;
    const message = await accumulate(
      provider.stream({ model: "m", messages: [{ role: "user", content: "x" }] }),
    );
    expect(mock.requests.at(-1)!.headers.authorization).toBe("Bearer env-key");
    expect(message.model).toBe("litellm/m");
  });
});
