import { describe, expect, it } from "vitest";
import { createModelCatalog } from "../../src/llm/catalog.js";
import { computeCost } from "../../src/llm/cost.js";
import { defaultModels, type ModelInfo } from "../../src/llm/models.js";
import type { Usage } from "../../src/llm/types.js";

function usage(input: number, output: number, cacheRead = 0, cacheWrite = 0): Usage {
  return {
    input_tokens: input,
    output_tokens: output,
    cache_read_input_tokens: cacheRead,
    cache_creation_input_tokens: cacheWrite,
  };
}

describe("model catalog lookup", () => {
  const catalog = createModelCatalog();

  it("finds every model the brief names, for both providers", () => {
    const ids = [
      "claude-opus-4-5",
      "claude-opus-4-1",
      "claude-opus-4",
      "claude-sonnet-4-5",
      "claude-sonnet-4",
      "claude-3-7-sonnet",
      "claude-haiku-4-5",
      "claude-3-5-haiku",
      "gpt-5",
      "gpt-5-mini",
      "gpt-5-nano",
      "gpt-4.1",
      "gpt-4.1-mini",
      "gpt-4.1-nano",
      "gpt-4o",
      "gpt-4o-mini",
      "o3",
      "o4-mini",
    ];
    for (const id of ids) expect(catalog.get(id)?.id, id).toBe(id);
  });

  it("resolves dated ids to their family, choosing the longest matching family", () => {
    expect(catalog.get("claude-sonnet-4-5-20250929")?.id).toBe("claude-sonnet-4-5");
    expect(catalog.get("claude-sonnet-4-20250514")?.id).toBe("claude-sonnet-4");
    expect(catalog.get("claude-opus-4-1-20250805")?.id).toBe("claude-opus-4-1");
    expect(catalog.get("claude-3-5-haiku-20241022")?.maxOutputTokens).toBe(8_192);
    expect(catalog.get("claude-3-7-sonnet-latest")?.id).toBe("claude-3-7-sonnet");
    expect(catalog.get("gpt-4o-2024-08-06")?.id).toBe("gpt-4o");
    expect(catalog.get("gpt-4o-mini-2024-07-18")?.id).toBe("gpt-4o-mini");
  });

  it("accepts a provider prefix, including a gateway's nested one", () => {
    expect(catalog.get("anthropic/claude-sonnet-4-5")?.provider).toBe("anthropic");
    expect(catalog.get("openai/gpt-4.1")?.contextWindow).toBe(1_047_576);
    expect(catalog.get("litellm/gpt-4o-mini")?.id).toBe("gpt-4o-mini");
    expect(catalog.get("openrouter/anthropic/claude-haiku-4-5")?.id).toBe("claude-haiku-4-5");
    expect(catalog.get("  Anthropic/Claude-Opus-4-5 ")?.id).toBe("claude-opus-4-5");
  });

  it("does not guess a price for an undated variant it does not list", () => {
    expect(catalog.get("o3-deep-research")).toBeUndefined();
    expect(catalog.get("gpt-4o-audio-preview")).toBeUndefined();
    expect(catalog.get("claude-sonnet-9")).toBeUndefined();
    expect(catalog.get("")).toBeUndefined();
  });

  it("lets a session override prices without touching another session's catalog", () => {
    const base = catalog.get("gpt-4o") as ModelInfo;
    const mine = createModelCatalog([{ ...base, pricing: { ...base.pricing, input: 1 } }]);
    expect(mine.get("gpt-4o")?.pricing.input).toBe(1);
    expect(createModelCatalog().get("gpt-4o")?.pricing.input).toBe(2.5);
    expect(catalog.get("gpt-4o")?.pricing.input).toBe(2.5);
    expect(mine.list()).toHaveLength(defaultModels.length);
  });

  it("registers a gateway-specific model that wins for its own provider prefix only", () => {
    const mine = createModelCatalog();
    const gpt4o = mine.get("gpt-4o") as ModelInfo;
    mine.register({ ...gpt4o, provider: "litellm", pricing: { ...gpt4o.pricing, output: 99 } });
    mine.register({
      id: "my-local-llama",
      provider: "ollama",
      contextWindow: 8_192,
      maxOutputTokens: 2_048,
      pricing: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    });
    expect(mine.get("litellm/gpt-4o")?.pricing.output).toBe(99);
    expect(mine.get("openai/gpt-4o")?.pricing.output).toBe(10);
    expect(mine.get("ollama/my-local-llama")?.contextWindow).toBe(8_192);
    expect(mine.get("my-local-llama")?.provider).toBe("ollama");
  });

  it("hands out copies, so editing a result does not change the catalog", () => {
    const a = catalog.get("gpt-5") as ModelInfo;
    a.pricing.input = 1000;
    expect(catalog.get("gpt-5")?.pricing.input).toBe(1.25);
    expect(Object.isFrozen(defaultModels[0]?.pricing)).toBe(true);
  });
});

describe("computeCost", () => {
  const catalog = createModelCatalog();

  it("prices input, output, cache reads and cache writes at their own rates", () => {
    // Sonnet 4.5: $3 in, $15 out, $0.30 cache read, $3.75 cache write per million tokens.
    const cost = computeCost(usage(1_000, 2_000, 10_000, 4_000), catalog.get("claude-sonnet-4-5-20250929"));
    expect(cost.known).toBe(true);
    expect(cost.costUsd).toBeCloseTo((1_000 * 3 + 2_000 * 15 + 10_000 * 0.3 + 4_000 * 3.75) / 1e6, 12);
    expect(cost.costUsd).toBeCloseTo(0.051, 12);
  });

  it("prices OpenAI cached input at the cached rate", () => {
    // gpt-4.1: $2 in, $0.50 cached, $8 out.
    const cost = computeCost(usage(1_000_000, 100_000, 500_000), catalog.get("openai/gpt-4.1"));
    expect(cost.costUsd).toBeCloseTo(2 + 0.8 + 0.25, 12);
  });

  it("charges a million output tokens of Opus 4.5 at its $25 list price", () => {
    expect(computeCost(usage(0, 1_000_000), catalog.get("anthropic/claude-opus-4-5")).costUsd).toBe(25);
  });

  it("costs an unknown model 0 and says the price is unknown", () => {
    expect(computeCost(usage(5_000, 5_000), catalog.get("mystery-model"))).toEqual({
      costUsd: 0,
      known: false,
    });
  });

  it("costs a known model with no usage 0 but keeps it known", () => {
    expect(computeCost(undefined, catalog.get("gpt-5"))).toEqual({ costUsd: 0, known: true });
  });

  it("uses overridden prices", () => {
    const mine = createModelCatalog([
      {
        id: "claude-haiku-4-5",
        provider: "anthropic",
        contextWindow: 200_000,
        maxOutputTokens: 64_000,
        pricing: { input: 10, output: 0, cacheRead: 0, cacheWrite: 0 },
      },
    ]);
    expect(computeCost(usage(100_000, 999), mine.get("claude-haiku-4-5")).costUsd).toBeCloseTo(1, 12);
  });
});
