import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accumulate } from "../../src/llm/accumulate.js";
import { createProviderRegistry, expandModelAlias, resolveModel } from "../../src/llm/resolve.js";
import { type Provider, type StreamEvent, textOf } from "../../src/llm/types.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";

const custom: Provider = {
  name: "scripted",
  async *stream(): AsyncIterable<StreamEvent> {
    yield { type: "message_start", model: "x" };
  },
};

describe("resolveModel", () => {
  it("sends anthropic/… to the anthropic provider with the bare id", () => {
    const r = resolveModel("anthropic/claude-sonnet-4-5");
    expect([r.provider.name, r.modelId, r.id]).toEqual([
      "anthropic",
      "claude-sonnet-4-5",
      "anthropic/claude-sonnet-4-5",
    ]);
  });

  it("sends openai/… to the openai provider, keeping any further slashes in the model id", () => {
    expect(resolveModel("openai/gpt-4.1").provider.name).toBe("openai");
    const r = resolveModel("openai/meta-llama/Llama-3.1-8B-Instruct");
    expect([r.provider.name, r.modelId]).toEqual(["openai", "meta-llama/Llama-3.1-8B-Instruct"]);
  });

  it("guesses the provider of a bare id from its name", () => {
    const cases: Array<[string, string]> = [
      ["claude-haiku-4-5-20251001", "anthropic"],
      ["gpt-5-mini", "openai"],
      ["o3", "openai"],
      ["o4-mini", "openai"],
      ["o1-preview", "openai"],
      ["chatgpt-4o-latest", "openai"],
    ];
    for (const [model, provider] of cases) {
      const r = resolveModel(model);
      expect([r.provider.name, r.modelId, r.id], model).toEqual([provider, model, `${provider}/${model}`]);
    }
  });

  it("refuses a bare id it cannot place, listing the known providers", () => {
    expect(() => resolveModel("llama3.1", [{ type: "openai", name: "ollama" }])).toThrow(
      'Cannot tell which provider serves model "llama3.1". Write it as provider/model; known providers: anthropic, openai, openai-responses, azure, azure-responses, azure-foundry, gemini, bedrock, vertex, ollama.',
    );
    expect(() => resolveModel("o3x")).toThrow(/Cannot tell which provider/);
  });

  it("refuses an unknown provider prefix, naming it and the known providers", () => {
    expect(() => resolveModel("mistral/mistral-large")).toThrow(
      /Unknown provider "mistral" in model "mistral\/mistral-large"\. Known providers: anthropic, openai, openai-responses, azure, azure-responses, azure-foundry, gemini, bedrock, vertex\./,
    );
  });

  it("refuses an empty model and an empty model after the prefix", () => {
    expect(() => resolveModel("  ")).toThrow(/No model given/);
    expect(() => resolveModel("anthropic/")).toThrow(/names no model/);
  });

  it("resolves through a named gateway config and a ready provider instance", () => {
    const r = resolveModel("litellm/anthropic/claude-sonnet-4-5", [
      { type: "openai", name: "litellm", baseURL: "http://127.0.0.1:4000" },
      custom,
    ]);
    expect([r.provider.name, r.modelId]).toEqual(["litellm", "anthropic/claude-sonnet-4-5"]);
    expect(resolveModel("scripted/anything", [custom]).provider).toBe(custom);
  });
});

describe("createProviderRegistry", () => {
  it("creates each provider once and reuses it for every model it serves", () => {
    const registry = createProviderRegistry();
    const a = registry.resolve("anthropic/claude-opus-4-5").provider;
    expect(registry.resolve("claude-haiku-4-5").provider).toBe(a);
    expect(registry.get("anthropic")).toBe(a);
    expect(registry.resolve("gpt-4o").provider).not.toBe(a);
    // A second registry (another session) gets its own instances.
    expect(createProviderRegistry().get("anthropic")).not.toBe(a);
  });

  it("lets a config named like a built-in replace it, also for guessed bare ids", () => {
    expect(createProviderRegistry([custom]).names()).toEqual([
      "anthropic",
      "openai",
      "openai-responses",
      "azure",
      "azure-responses",
      "azure-foundry",
      "gemini",
      "bedrock",
      "vertex",
      "scripted",
    ]);
    const mine = createProviderRegistry([{ ...custom, name: "openai" }]);
    expect(mine.resolve("gpt-4.1").provider.stream).toBe(custom.stream);
  });

  it("returns undefined for a provider it does not know", () => {
    expect(createProviderRegistry().get("nope")).toBeUndefined();
  });

  it("rejects duplicate names, names with a slash and unknown types up front", () => {
    expect(() =>
      createProviderRegistry([
        { type: "openai", name: "gw" },
        { type: "anthropic", name: "gw" },
      ]),
    ).toThrow('Two providers are named "gw"');
    expect(() => createProviderRegistry([{ type: "openai", name: "a/b" }])).toThrow(/invalid/);
    expect(() => createProviderRegistry([{ type: "bard" as "openai", name: "g" }])).toThrow(
      'Provider "g" has unknown type "bard"',
    );
  });
});

describe("resolved providers over HTTP", () => {
  let mock: MockProvider;
  beforeAll(async () => {
    mock = await startMockProvider();
  });
  afterAll(() => mock.close());

  async function ask(r: { provider: Provider; modelId: string }): Promise<string> {
    const message = await accumulate(
      r.provider.stream({ model: r.modelId, messages: [{ role: "user", content: "hi" }] }),
    );
    return textOf(message);
  }

  it("reaches a LiteLLM-style gateway through its own base URL, key and headers", async () => {
    const registry = createProviderRegistry([
      {
        type: "openai",
        name: "litellm",
        baseURL: mock.openaiBaseURL,
        apiKey: "gw-key",
        headers: { "x-team": "goat" },
      },
    ]);
    mock.enqueue(reply.text("from the gateway"));
    expect(await ask(registry.resolve("litellm/anthropic/claude-sonnet-4-5"))).toBe("from the gateway");
    const sent = mock.requests.at(-1);
    expect(sent?.path).toBe("/v1/chat/completions");
    expect(sent?.body.model).toBe("anthropic/claude-sonnet-4-5");
    expect(sent?.headers.authorization).toBe("Bearer gw-key");
    expect(sent?.headers["x-team"]).toBe("goat");
  });

  it("sends a guessed bare claude id to an anthropic config that replaced the built-in", async () => {
    let asked = 0;
    const registry = createProviderRegistry([
      {
        type: "anthropic",
        baseURL: mock.anthropicBaseURL,
        getApiKey: (name) => {
          asked++;
          return `${name}-key`;
        },
      },
    ]);
    mock.enqueue(reply.text("one"), reply.text("two"));
    expect(await ask(registry.resolve("claude-haiku-4-5"))).toBe("one");
    expect(await ask(registry.resolve("anthropic/claude-haiku-4-5"))).toBe("two");
    expect(asked).toBe(2); // the key is asked for at call time, once per call
    const [a, b] = mock.requests.slice(-2);
    expect([a?.path, a?.body.model, a?.headers["x-api-key"]]).toEqual([
      "/v1/messages",
      "claude-haiku-4-5",
      "anthropic-key",
    ]);
    expect(b?.body.model).toBe("claude-haiku-4-5");
  });
});

describe("Claude Code's short model names", () => {
  it("resolves sonnet, opus and haiku to Anthropic models", () => {
    const registry = createProviderRegistry();
    expect(registry.resolve("sonnet")).toMatchObject({
      id: "anthropic/claude-sonnet-4-5",
      modelId: "claude-sonnet-4-5",
    });
    expect(registry.resolve("Opus").modelId).toBe("claude-opus-4-5");
    expect(registry.resolve("haiku").provider.name).toBe("anthropic");
    expect(expandModelAlias("openai/gpt-4.1")).toBe("openai/gpt-4.1");
  });
});
