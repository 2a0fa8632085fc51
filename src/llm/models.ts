/**
 * The built-in model list: context window, output limit and list prices of the current Anthropic and
 * OpenAI models. Plain read-only data; a session's catalog (catalog.ts) starts from it and may override
 * any entry, so nothing here is ever mutated.
 *
 * Prices are public list prices in USD per million tokens. Anthropic's are from anthropic.com/pricing
 * (2025-11). The OpenAI (GPT-5, 5.1, Codex, pro, mini, nano, o3, o3-pro, o4-mini), Gemini (3 Pro
 * preview, 2.5 Pro, Flash, Flash-Lite, with their cache-read and over-200k rates), Bedrock Nova and
 * Llama 3.3 rows were checked on 2026-11-28 against LiteLLM's model_prices_and_context_window.json
 * (github.com/BerriAI/litellm at 00035b69), which cites the providers' pricing pages: every rate
 * matched. Not verified: Bedrock's cache-read rate for Nova (a quarter of input, AWS's announced 75%
 * discount; LiteLLM lists none). They ignore batch discounts, Anthropic's 1-hour cache writes and the
 * long-context (>200k input, 1M beta) surcharge of the Sonnet models. Register your own entry when your
 * contract differs.
 */

import type { EffortLevel } from "./types.js";

/** Prices in USD per million tokens. */
export interface ModelPricing {
  input: number;
  output: number;
  /** Reading a cached prompt prefix. */
  cacheRead: number;
  /** Writing a prompt prefix to the cache (Anthropic's 5-minute rate; OpenAI charges plain input). */
  cacheWrite: number;
  /**
   * Rates for a call whose prompt (input, cache reads and cache writes together) is longer than
   * `aboveTokens`: the whole call is billed at them, as Anthropic bills Claude Sonnet 4 and 4.5 past
   * 200,000 prompt tokens with the 1M-context beta.
   */
  longContext?: LongContextPricing;
}

/** A model's rates past a prompt length (USD per million tokens), see `ModelPricing.longContext`. */
export interface LongContextPricing {
  aboveTokens: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** What the runtime knows about one model. */
export interface ModelInfo {
  /** Model id as the provider's API takes it, without a provider prefix, e.g. `claude-sonnet-4-5`. */
  id: string;
  /** Provider name used in `provider/model` ids, e.g. `anthropic`. */
  provider: string;
  /** Human-readable name. */
  name?: string;
  /** Maximum input + output tokens. */
  contextWindow: number;
  /** Maximum tokens the model may write in one answer. */
  maxOutputTokens: number;
  pricing: ModelPricing;
  /** True when the model can reason (extended thinking, reasoning effort). */
  reasoning?: boolean;
  /**
   * The `effort` levels the model takes, lowest first (default: none for Anthropic models, low to
   * high for OpenAI reasoning models). Effort is not sent to a known model that takes none.
   */
  effortLevels?: EffortLevel[];
  /** True when the model takes `thinking: { type: "adaptive" }` (else adaptive becomes a fixed budget). */
  adaptiveThinking?: boolean;
}

/** Anthropic cache writes cost 1.25x input and reads 0.1x input (5-minute cache). */
function anthropic(
  id: string,
  name: string,
  input: number,
  output: number,
  maxOutputTokens: number,
  reasoning = true,
): ModelInfo {
  return {
    id,
    provider: "anthropic",
    name,
    contextWindow: 200_000,
    maxOutputTokens,
    pricing: { input, output, cacheRead: round(input * 0.1), cacheWrite: round(input * 1.25) },
    reasoning,
  };
}

/** OpenAI bills cached input at its own rate and has no separate cache-write charge. */
function openai(
  id: string,
  name: string,
  prices: [input: number, cachedInput: number, output: number],
  contextWindow: number,
  maxOutputTokens: number,
  reasoning: boolean,
): ModelInfo {
  const [input, cacheRead, output] = prices;
  return {
    id,
    provider: "openai",
    name,
    contextWindow,
    maxOutputTokens,
    pricing: { input, output, cacheRead, cacheWrite: input },
    reasoning,
  };
}

/**
 * A model Bedrock serves through Converse (Claude on Bedrock is priced as Anthropic's entries).
 * `cacheRead` is the model's own rate where Bedrock caches its prompts (Nova: a quarter of input),
 * else plain input; Bedrock charges no cache writes for these models.
 */
function bedrock(
  id: string,
  name: string,
  prices: [input: number, cachedInput: number, output: number],
  contextWindow: number,
  maxOutputTokens: number,
): ModelInfo {
  const [input, cacheRead, output] = prices;
  return {
    id,
    provider: "bedrock",
    name,
    contextWindow,
    maxOutputTokens,
    pricing: { input, output, cacheRead, cacheWrite: input },
    reasoning: false,
  };
}

/**
 * Gemini API: cached input at its own rate and no write charge (implicit caching; explicit caches bill
 * storage by the hour, which a per-call cost cannot show); the 2.5 Pro and 3 Pro rates rise for a
 * prompt over 200,000 tokens (`long`: input, output, cached input).
 */
function gemini(
  id: string,
  name: string,
  prices: [input: number, cachedInput: number, output: number],
  long?: [input: number, cachedInput: number, output: number],
): ModelInfo {
  const [input, cacheRead, output] = prices;
  const pricing: ModelPricing = { input, output, cacheRead, cacheWrite: input };
  if (long) {
    const [li, lc, lo] = long;
    pricing.longContext = { aboveTokens: 200_000, input: li, output: lo, cacheRead: lc, cacheWrite: li };
  }
  // Effort reaches Gemini as a thinking budget (gemini-request.ts).
  const effortLevels: EffortLevel[] = ["low", "medium", "high"];
  return {
    id,
    provider: "gemini",
    name,
    contextWindow: 1_048_576,
    maxOutputTokens: 65_536,
    pricing,
    reasoning: true,
    effortLevels,
  };
}

/** Avoids 0.30000000000000004 in a table people read. */
function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

/** The built-in models, newest first per family. Dated ids (`…-20250929`) resolve to these by prefix. */
export const defaultModels: readonly Readonly<ModelInfo>[] = Object.freeze(
  [
    anthropic("claude-opus-4-5", "Claude Opus 4.5", 5, 25, 64_000),
    anthropic("claude-opus-4-1", "Claude Opus 4.1", 15, 75, 32_000),
    anthropic("claude-opus-4", "Claude Opus 4", 15, 75, 32_000),
    anthropic("claude-sonnet-4-5", "Claude Sonnet 4.5", 3, 15, 64_000),
    anthropic("claude-sonnet-4", "Claude Sonnet 4", 3, 15, 64_000),
    anthropic("claude-3-7-sonnet", "Claude Sonnet 3.7", 3, 15, 64_000),
    anthropic("claude-haiku-4-5", "Claude Haiku 4.5", 1, 5, 64_000),
    anthropic("claude-3-5-haiku", "Claude Haiku 3.5", 0.8, 4, 8_192, false),
    openai("gpt-5.1", "GPT-5.1", [1.25, 0.125, 10], 400_000, 128_000, true),
    openai("gpt-5", "GPT-5", [1.25, 0.125, 10], 400_000, 128_000, true),
    openai("gpt-5-codex", "GPT-5 Codex", [1.25, 0.125, 10], 400_000, 128_000, true),
    openai("gpt-5-pro", "GPT-5 pro", [15, 15, 120], 400_000, 272_000, true),
    openai("gpt-5-mini", "GPT-5 mini", [0.25, 0.025, 2], 400_000, 128_000, true),
    openai("gpt-5-nano", "GPT-5 nano", [0.05, 0.005, 0.4], 400_000, 128_000, true),
    openai("gpt-4.1", "GPT-4.1", [2, 0.5, 8], 1_047_576, 32_768, false),
    openai("gpt-4.1-mini", "GPT-4.1 mini", [0.4, 0.1, 1.6], 1_047_576, 32_768, false),
    openai("gpt-4.1-nano", "GPT-4.1 nano", [0.1, 0.025, 0.4], 1_047_576, 32_768, false),
    openai("gpt-4o", "GPT-4o", [2.5, 1.25, 10], 128_000, 16_384, false),
    openai("gpt-4o-mini", "GPT-4o mini", [0.15, 0.075, 0.6], 128_000, 16_384, false),
    openai("o3", "o3", [2, 0.5, 8], 200_000, 100_000, true),
    openai("o3-pro", "o3-pro", [20, 20, 80], 200_000, 100_000, true),
    openai("codex-mini-latest", "codex-mini", [1.5, 0.375, 6], 200_000, 100_000, true),
    openai("o3-mini", "o3-mini", [1.1, 0.55, 4.4], 200_000, 100_000, true),
    openai("o4-mini", "o4-mini", [1.1, 0.275, 4.4], 200_000, 100_000, true),
    openai("o1", "o1", [15, 7.5, 60], 200_000, 100_000, true),
    gemini("gemini-3-pro-preview", "Gemini 3 Pro (preview)", [2, 0.2, 12], [4, 0.4, 18]),
    gemini("gemini-2.5-pro", "Gemini 2.5 Pro", [1.25, 0.125, 10], [2.5, 0.25, 15]),
    gemini("gemini-2.5-flash", "Gemini 2.5 Flash", [0.3, 0.03, 2.5]),
    gemini("gemini-2.5-flash-lite", "Gemini 2.5 Flash-Lite", [0.1, 0.01, 0.4]),
    // Bedrock on-demand list prices, us-east-1 (aws.amazon.com/bedrock/pricing; input and output
    // checked against LiteLLM 2026-11-28; the Nova cache-read column is unverified, see the top).
    bedrock("amazon.nova-pro-v1:0", "Amazon Nova Pro", [0.8, 0.2, 3.2], 300_000, 10_000),
    bedrock("amazon.nova-lite-v1:0", "Amazon Nova Lite", [0.06, 0.015, 0.24], 300_000, 10_000),
    bedrock("amazon.nova-micro-v1:0", "Amazon Nova Micro", [0.035, 0.00875, 0.14], 128_000, 10_000),
    bedrock("meta.llama3-3-70b-instruct-v1:0", "Llama 3.3 70B Instruct", [0.72, 0.72, 0.72], 128_000, 8_192),
  ].map((m) => Object.freeze({ ...m, pricing: Object.freeze(m.pricing) })),
);
