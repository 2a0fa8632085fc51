/**
 * A session's models: the provider registry and catalog from the options, prices and the cost of each
 * call, the model caller (retry and fallback), the small fast model, and the checks a model must pass
 * (a provider serves it; it has a price when a budget is set). Built first: nothing here needs the
 * session's other services.
 */
import { InvalidOptionError } from "../errors.js";
import { createModelCatalog, type ModelCatalog } from "../llm/catalog.js";
import { costAt, createPriceList, type PriceList } from "../llm/cost.js";
import { asksForLongContext, widenToLongContext } from "../llm/long-context.js";
import {
  createProviderRegistry,
  defaultModel,
  expandModelAlias,
  type ProviderRegistry,
  type ProviderSpec,
} from "../llm/resolve.js";
import type { Usage } from "../llm/types.js";
import type { ModelCaller } from "../loop/loop-config.js";
import { createModelCaller } from "../loop/model-caller.js";
import type { SessionOptions } from "./options.js";
import { resolveSmallFastModel } from "./small-model.js";

/** The models of one session. */
export interface SessionProviders {
  readonly registry: ProviderRegistry;
  readonly catalog: ModelCatalog;
  /** The providers the options give (the built-in ones are always there). */
  readonly providerSpecs: ProviderSpec[];
  /** The model of the options (aliases expanded), or the environment's default. */
  readonly configuredModel: string;
  /** The small, fast model for side tasks such as WebFetch's summaries; undefined when none. */
  readonly smallFastModel: string | undefined;
  /** Calls a model through the registry, with the retry strategy and the fallback model. */
  readonly callModel: ModelCaller;
  /** A call's cost in USD; a model without a price counts as $0 and is reported once. */
  costOf(model: string, usage: Usage): number;
  contextWindowOf(model: string): number | undefined;
  maxOutputTokensOf(model: string): number | undefined;
  /** Throws when no provider serves `model`, or when a budget is set and `model` has no price. */
  checkModel(model: string): void;
  /** Replaces the fallback model from the next call on (undefined: back to the option's). */
  setFallbackModel(model: string | undefined): void;
}

/**
 * Builds the session's models. Throws for a model no provider serves, or one without a price when
 * `maxBudgetUsd` is set. `report` is said to the host as the session runs; `atStart` once it starts.
 */
export function createSessionProviders(
  options: SessionOptions,
  env: Record<string, string | undefined>,
  report: (message: string) => void,
  atStart: (message: string) => void,
): SessionProviders {
  const configuredModel = expandModelAlias(options.model ?? defaultModel(env));
  const providerSpecs: ProviderSpec[] = options.provider
    ? Array.isArray(options.provider)
      ? options.provider
      : [options.provider]
    : [];
  const registry = createProviderRegistry(providerSpecs, {
    env,
    timeouts: options.providerTimeouts,
    proxy: options.proxy,
    getApiKey: options.getApiKey,
    anthropicBetas: options.betas,
  });
  // Fail at start-up, not on the first call, when the model names no known provider.
  registry.resolve(configuredModel);
  const catalog = createModelCatalog(options.models ?? []);
  if (asksForLongContext(options.betas)) widenToLongContext(catalog, options.models ?? []);
  const prices = createPriceList(catalog, options.modelPricing);
  const fallbackModel = options.fallbackModel && expandModelAlias(options.fallbackModel);
  const budgeted = options.maxBudgetUsd !== undefined;
  if (budgeted) for (const model of [configuredModel, fallbackModel]) if (model) assertPriced(model, prices);
  const smallFastModel = resolveSmallFastModel(options.smallFastModel, env, registry, atStart);
  if (smallFastModel && budgeted) assertPriced(smallFastModel, prices);
  // Mutable: the flag settings layer may change the fallback model mid-session.
  const callerOptions = { retry: options.retry, fallbackModel };
  return {
    registry,
    catalog,
    providerSpecs,
    configuredModel,
    smallFastModel,
    callModel: createModelCaller(registry, callerOptions),
    costOf: createCostOf(prices, report),
    contextWindowOf: (model) => catalog.get(model)?.contextWindow,
    maxOutputTokensOf: (model) => catalog.get(model)?.maxOutputTokens,
    checkModel(model) {
      registry.resolve(model);
      if (budgeted) assertPriced(expandModelAlias(model), prices);
    },
    setFallbackModel(model) {
      callerOptions.fallbackModel = model === undefined ? fallbackModel : expandModelAlias(model);
    },
  };
}

/** Refuses a budget that could never fire: the model's calls would all count as $0. */
function assertPriced(model: string, prices: PriceList): void {
  if (prices.priceOf(model)) return;
  throw new InvalidOptionError(
    "maxBudgetUsd",
    `maxBudgetUsd is set, but no price is known for the model "${model}", so the budget could never be enforced. Give its price in USD per million tokens: modelPricing: { "${model}": { input: 3, output: 15 } } (the query() option, or the key of that name in the goat settings file), or register the model in models.`,
  );
}

/** Prices each call; a model with no price counts as $0 and is reported once per session. */
function createCostOf(
  prices: PriceList,
  report: (message: string) => void,
): (model: string, usage: Usage) => number {
  const unpriced = new Set<string>();
  return (model, usage) => {
    const price = prices.priceOf(model);
    if (price) return costAt(usage, price);
    // One model goes by its bare id and by its `provider/` id (a result's, the transcript's): one report.
    const id = model.trim().toLowerCase();
    const bare = id.slice(id.indexOf("/") + 1);
    if (!unpriced.has(bare)) {
      unpriced.add(bare);
      report(
        `No price is known for the model "${model}": its calls count as $0 in total_cost_usd. Give one with modelPricing: { "${model}": { input, output } } (USD per million tokens).`,
      );
    }
    return 0;
  };
}
