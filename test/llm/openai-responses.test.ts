/** The Responses wire's own rules: what the body says, and which OpenAI models take this wire. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { accumulate } from "../../src/llm/accumulate.js";
import { createAzureOpenAIProvider } from "../../src/llm/azure.js";
import { createOpenAIProvider, usesResponses } from "../../src/llm/openai.js";
import { createOpenAIResponsesProvider } from "../../src/llm/openai-responses.js";
import { createProviderRegistry } from "../../src/llm/resolve.js";
import type { ModelRequest } from "../../src/llm/types.js";
import { type MockProvider, reply, startMockProvider } from "../../src/testing/mock-provider.js";

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());
beforeEach(() => {
  mock.requests.length = 0;
});

const ask = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  model: "gpt-5",
  system: "Be brief.",
  messages: [{ role: "user", content: "hi" }],
  ...over,
});

describe("openai-responses", () => {
  it("keeps nothing server-side, asks for encrypted reasoning, and keeps one prompt_cache_key per provider", async () => {
    const provider = createOpenAIResponsesProvider({ baseURL: mock.openaiBaseURL, apiKey: "k" });
    mock.enqueue(reply.text("a"), reply.text("b"));
    await accumulate(provider.stream(ask({ effort: "high", maxTokens: 300 })));
    await accumulate(provider.stream(ask()));
    const [first, second] = mock.requests.map((r) => r.body);
    expect(first).toMatchObject({
      model: "gpt-5",
      instructions: "Be brief.",
      store: false,
      stream: true,
      max_output_tokens: 300,
      include: ["reasoning.encrypted_content"],
      reasoning: { effort: "high", summary: "auto" },
    });
    expect(first.prompt_cache_key).toMatch(/^goat-/);
    expect(second.prompt_cache_key).toBe(first.prompt_cache_key);
    const other = createOpenAIResponsesProvider({ baseURL: mock.openaiBaseURL, apiKey: "k" });
    mock.enqueue(reply.text("c"));
    await accumulate(other.stream(ask()));
    expect(mock.requests[2].body.prompt_cache_key).not.toBe(first.prompt_cache_key);
  });

  it("maps a thinking budget to an effort, and sends no reasoning to a model that has none", async () => {
    const provider = createOpenAIResponsesProvider({ baseURL: mock.openaiBaseURL, apiKey: "k" });
    mock.enqueue(reply.text("a"), reply.text("b"), reply.text("c"));
    await accumulate(provider.stream(ask({ thinking: { type: "enabled", budgetTokens: 1000 } })));
    await accumulate(provider.stream(ask({ model: "gpt-4.1" })));
    await accumulate(provider.stream(ask({ effort: "max" })));
    const [low, none, max] = mock.requests.map((r) => r.body);
    expect(low.reasoning).toEqual({ effort: "low", summary: "auto" });
    expect(none.reasoning).toBeUndefined();
    expect(none.include).toBeUndefined();
    expect(max.reasoning.effort).toBe("xhigh");
  });

  it("reports reasoning and cached tokens, and sends the reasoning item back before its call", async () => {
    const provider = createOpenAIResponsesProvider({ baseURL: mock.openaiBaseURL, apiKey: "k" });
    mock.enqueue(
      reply.message(
        [
          { type: "thinking", thinking: "Plan.", signature: "ENC" },
          { type: "tool_use", name: "Read", input: { file_path: "/x" }, id: "call_1" },
        ],
        { usage: { input: 10, cacheRead: 90, output: 30, reasoning: 20 } },
      ),
      reply.text("done"),
    );
    const first = await accumulate(provider.stream(ask()));
    expect(first.usage).toEqual({
      input_tokens: 10,
      output_tokens: 30,
      cache_read_input_tokens: 90,
      cache_creation_input_tokens: 0,
      reasoning_tokens: 20,
    });
    await accumulate(
      provider.stream(
        ask({
          messages: [
            { role: "user", content: "hi" },
            first,
            {
              role: "user",
              content: [{ type: "tool_result", tool_use_id: "call_1", content: "boom", isError: true }],
            },
          ],
        }),
      ),
    );
    const input = mock.requests[1].body.input;
    expect(input.map((i: any) => i.type ?? i.role)).toEqual([
      "user",
      "reasoning",
      "function_call",
      "function_call_output",
    ]);
    expect(input[1]).toEqual({
      type: "reasoning",
      id: "rs_mock0",
      summary: [{ type: "summary_text", text: "Plan." }],
      encrypted_content: "ENC",
    });
    expect(input[2]).toEqual({
      type: "function_call",
      id: "fc_mock1",
      call_id: "call_1",
      name: "Read",
      arguments: '{"file_path":"/x"}',
    });
    expect(input[3]).toEqual({ type: "function_call_output", call_id: "call_1", output: "Error: boom" });
  });

  it("sends a call's item id only beside its reasoning item (thinking dropped by compaction)", async () => {
    const provider = createOpenAIResponsesProvider({ baseURL: mock.openaiBaseURL, apiKey: "k" });
    mock.enqueue(reply.text("ok"));
    const call = { type: "tool_use" as const, id: "call_9", name: "Read", input: {}, signature: "fc_9" };
    await accumulate(
      provider.stream(
        ask({
          messages: [
            { role: "user", content: "hi" },
            { role: "assistant", content: [call] },
            { role: "user", content: [{ type: "tool_result", tool_use_id: "call_9", content: "x" }] },
          ],
        }),
      ),
    );
    expect(mock.requests[0].body.input[1]).toEqual({
      type: "function_call",
      call_id: "call_9",
      name: "Read",
      arguments: "{}",
    });
  });

  it("maps a content-filter stop to refusal with the reason in stop_details", async () => {
    const provider = createOpenAIResponsesProvider({ baseURL: mock.openaiBaseURL, apiKey: "k" });
    mock.enqueue(reply.text("I can", { stopReason: "refusal" }));
    const m = await accumulate(provider.stream(ask()));
    expect(m.stop_reason).toBe("refusal");
    expect(m.stop_details).toBe("content_filter");
  });
});

describe("which wire openai/ uses", () => {
  const on = (env: Record<string, string | undefined>, baseURL?: string) => ({ env, options: { baseURL } });
  it("Responses for OpenAI's reasoning models on OpenAI's API; Chat Completions for the rest and for gateways", () => {
    for (const model of ["gpt-5", "gpt-5-mini", "o3", "o4-mini", "codex-mini-latest"])
      expect(usesResponses(model, on({}))).toBe(true);
    for (const model of ["gpt-4.1", "gpt-4o", "chatgpt-4o-latest"])
      expect(usesResponses(model, on({}))).toBe(false);
    expect(usesResponses("gpt-5", on({}, "http://127.0.0.1:4000/v1"))).toBe(false);
    expect(usesResponses("gpt-5", on({ OPENAI_BASE_URL: "http://localhost:11434/v1" }))).toBe(false);
    expect(usesResponses("gpt-4.1", on({ GOAT_OPENAI_WIRE: "responses" }))).toBe(true);
    expect(usesResponses("gpt-5", on({ GOAT_OPENAI_WIRE: "chat" }))).toBe(false);
  });

  it("calls /responses for a reasoning model when the wire is forced, /chat/completions otherwise", async () => {
    const env = { GOAT_OPENAI_WIRE: "responses" };
    const provider = createOpenAIProvider({ baseURL: mock.openaiBaseURL, apiKey: "k", env });
    mock.enqueue(reply.text("r"));
    expect((await accumulate(provider.stream(ask()))).content).toEqual([{ type: "text", text: "r" }]);
    const chat = createOpenAIProvider({ baseURL: mock.openaiBaseURL, apiKey: "k", env: {} });
    mock.enqueue(reply.text("c"));
    await accumulate(chat.stream(ask()));
    expect(mock.requests.map((r) => r.path)).toEqual(["/v1/responses", "/v1/chat/completions"]);
  });
});

describe("azure", () => {
  it("calls the deployment with api-version and api-key; a JWT from getApiKey goes as a bearer token", async () => {
    const env = {
      AZURE_OPENAI_ENDPOINT: mock.geminiBaseURL,
      AZURE_OPENAI_API_KEY: "azk",
      OPENAI_API_VERSION: "2025-01-01-preview",
    };
    const keyed = createAzureOpenAIProvider({ env });
    const jwt = "eyJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJodHRwcyJ9.c2ln";
    const entra = createAzureOpenAIProvider({ env, getApiKey: () => jwt });
    mock.enqueue(reply.text("a"), reply.text("b"), reply.text("c"));
    await accumulate(keyed.stream(ask({ model: "my-4o" })));
    await accumulate(entra.stream(ask({ model: "my-4o" })));
    await accumulate(keyed.stream(ask({ model: "o4-mini" })));
    const [a, b, c] = mock.requests;
    expect(a.url).toBe("/openai/deployments/my-4o/chat/completions?api-version=2025-01-01-preview");
    expect(a.headers["api-key"]).toBe("azk");
    expect(a.headers.authorization).toBeUndefined();
    expect(b.headers.authorization).toBe(`Bearer ${jwt}`);
    expect(b.headers["api-key"]).toBeUndefined();
    // A deployment named after a reasoning model goes to the v1 Responses API.
    expect(c.path).toBe("/openai/v1/responses");
    expect(c.body.model).toBe("o4-mini");
  });

  it("says what to set when the endpoint is missing", async () => {
    const provider = createAzureOpenAIProvider({ env: { AZURE_OPENAI_API_KEY: "k" } });
    await expect(accumulate(provider.stream(ask()))).rejects.toThrow(/AZURE_OPENAI_ENDPOINT/);
  });

  it("azure-foundry/<model> speaks the Model Inference API: /models/chat/completions, the model in the body", async () => {
    const env = { AZURE_AI_ENDPOINT: `${mock.geminiBaseURL}/models/`, AZURE_AI_API_KEY: "fdk" };
    const registry = createProviderRegistry([], { env });
    const resolved = registry.resolve("azure-foundry/Mistral-Large-2411");
    const jwt = "eyJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJodHRwcyJ9.c2ln";
    const entra = createAzureOpenAIProvider({ wire: "foundry", env, getApiKey: () => jwt });
    mock.enqueue(reply.text("bonjour"), reply.text("b"));
    const message = await accumulate(
      resolved.provider.stream(ask({ model: resolved.modelId, maxTokens: 64 })),
    );
    await accumulate(entra.stream(ask({ model: "DeepSeek-R1" })));
    registry.close();
    expect(message.content).toEqual([{ type: "text", text: "bonjour" }]);
    const [keyed, bearer] = mock.requests;
    expect(keyed.url).toBe("/models/chat/completions?api-version=2024-05-01-preview");
    expect(keyed.headers["api-key"]).toBe("fdk");
    // An optional field a model does not know is dropped by the service, not answered with 422.
    expect(keyed.headers["extra-parameters"]).toBe("drop");
    expect(keyed.body).toMatchObject({ model: "Mistral-Large-2411", stream: true, max_tokens: 64 });
    expect(keyed.body.messages[0]).toEqual({ role: "system", content: "Be brief." });
    expect(bearer.headers.authorization).toBe(`Bearer ${jwt}`);
    expect(bearer.body.model).toBe("DeepSeek-R1");
  });

  it("azure-foundry says which endpoint variable to set", async () => {
    const provider = createAzureOpenAIProvider({ wire: "foundry", env: { AZURE_AI_API_KEY: "k" } });
    await expect(accumulate(provider.stream(ask()))).rejects.toThrow(/AZURE_AI_ENDPOINT/);
  });
});
