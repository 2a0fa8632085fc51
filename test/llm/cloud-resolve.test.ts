/** `bedrock/…` and `vertex/…` ids, Claude Code's cloud switches, and catalog prices for cloud model ids. */
import { describe, expect, it } from "vitest";
import { createModelCatalog } from "../../src/llm/catalog.js";
import { baseModelId, bedrockModelId, vertexModelId } from "../../src/llm/cloud-models.js";
import { createProviderRegistry, defaultModel } from "../../src/llm/resolve.js";

describe("cloud model ids", () => {
  it("maps short and dated Claude names to the cloud's ids, and leaves full ids alone", () => {
    expect(bedrockModelId("claude-sonnet-4-5", "us-east-1")).toBe(
      "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    );
    expect(bedrockModelId("claude-haiku-4-5", "eu-west-1")).toBe(
      "eu.anthropic.claude-haiku-4-5-20251001-v1:0",
    );
    expect(bedrockModelId("claude-opus-4-1-20250805", "ap-northeast-1")).toBe(
      "apac.anthropic.claude-opus-4-1-20250805-v1:0",
    );
    expect(bedrockModelId("global.anthropic.claude-sonnet-4-5-20250929-v1:0", "us-east-1")).toBe(
      "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
    );
    expect(bedrockModelId("meta.llama3-3-70b-instruct-v1:0", "us-east-1")).toBe(
      "meta.llama3-3-70b-instruct-v1:0",
    );
    expect(vertexModelId("claude-sonnet-4-5")).toBe("claude-sonnet-4-5@20250929");
    expect(vertexModelId("claude-sonnet-4-5@20250929")).toBe("claude-sonnet-4-5@20250929");
    expect(baseModelId("us.anthropic.claude-sonnet-4-5-20250929-v1:0")).toBe("claude-sonnet-4-5-20250929");
    expect(baseModelId("claude-opus-4-5@20251101")).toBe("claude-opus-4-5-20251101");
  });

  it("prices Claude under its Bedrock and Vertex ids as under Anthropic's", () => {
    const catalog = createModelCatalog();
    const sonnet = catalog.get("anthropic/claude-sonnet-4-5")?.pricing;
    expect(sonnet).toBeDefined();
    expect(catalog.get("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0")?.pricing).toEqual(sonnet);
    expect(catalog.get("bedrock/claude-sonnet-4-5")?.pricing).toEqual(sonnet);
    expect(catalog.get("vertex/claude-sonnet-4-5@20250929")?.pricing).toEqual(sonnet);
    expect(catalog.get("bedrock/meta.llama3-3-70b-instruct-v1:0")?.pricing.output).toBe(0.72);
    // A cross-region inference profile of another vendor's model is priced as the model.
    expect(catalog.get("bedrock/us.amazon.nova-pro-v1:0")?.pricing).toMatchObject({
      input: 0.8,
      cacheRead: 0.2,
      output: 3.2,
    });
    expect(catalog.get("bedrock/us.meta.llama4-scout-17b-instruct-v1:0")).toBeUndefined();
  });
});

describe("Claude Code's cloud switches", () => {
  it("resolve bedrock/ and vertex/ to their providers", () => {
    const registry = createProviderRegistry([], { env: {} });
    expect(registry.resolve("bedrock/claude-sonnet-4-5")).toMatchObject({
      modelId: "claude-sonnet-4-5",
      id: "bedrock/claude-sonnet-4-5",
    });
    expect(registry.resolve("bedrock/claude-sonnet-4-5").provider.name).toBe("bedrock");
    expect(registry.resolve("vertex/claude-opus-4-5").provider.name).toBe("vertex");
  });

  it("send Claude names (bare, aliased or anthropic/) to Bedrock with CLAUDE_CODE_USE_BEDROCK=1", () => {
    const registry = createProviderRegistry([], { env: { CLAUDE_CODE_USE_BEDROCK: "1" } });
    expect(registry.resolve("claude-sonnet-4-5")).toMatchObject({ id: "bedrock/claude-sonnet-4-5" });
    expect(registry.resolve("sonnet")).toMatchObject({ id: "bedrock/claude-sonnet-4-5" });
    expect(registry.resolve("anthropic/claude-haiku-4-5").provider.name).toBe("bedrock");
    expect(registry.resolve("openai/gpt-4.1").provider.name).toBe("openai");
  });

  it("send them to Vertex with CLAUDE_CODE_USE_VERTEX=1, but not when the user defined their own anthropic provider", () => {
    expect(
      createProviderRegistry([], { env: { CLAUDE_CODE_USE_VERTEX: "1" } }).resolve("claude-opus-4-5").id,
    ).toBe("vertex/claude-opus-4-5");
    const own = createProviderRegistry([{ type: "anthropic", baseURL: "http://127.0.0.1:1" }], {
      env: { CLAUDE_CODE_USE_VERTEX: "1" },
    });
    expect(own.resolve("anthropic/claude-opus-4-5").id).toBe("anthropic/claude-opus-4-5");
    expect(
      createProviderRegistry([], { env: { CLAUDE_CODE_USE_VERTEX: "0" } }).resolve("claude-opus-4-5").id,
    ).toBe("anthropic/claude-opus-4-5");
  });

  it("pick the default model from ANTHROPIC_MODEL on the chosen cloud", () => {
    expect(defaultModel({ CLAUDE_CODE_USE_BEDROCK: "1" })).toBe("bedrock/claude-sonnet-4-5");
    expect(
      defaultModel({
        CLAUDE_CODE_USE_BEDROCK: "1",
        ANTHROPIC_MODEL: "us.anthropic.claude-opus-4-1-20250805-v1:0",
      }),
    ).toBe("bedrock/us.anthropic.claude-opus-4-1-20250805-v1:0");
    expect(defaultModel({ CLAUDE_CODE_USE_VERTEX: "1", ANTHROPIC_MODEL: "opus" })).toBe(
      "anthropic/claude-opus-4-5",
    );
    expect(defaultModel({ CLAUDE_CODE_USE_BEDROCK: "1", GOAT_MODEL: "openai/gpt-4.1" })).toBe(
      "openai/gpt-4.1",
    );
    expect(defaultModel({ ANTHROPIC_MODEL: "claude-opus-4-5" })).toBe("anthropic/claude-sonnet-4-5");
  });
});
