/**
 * The session's small/fast model (`smallFastModel`, as Claude Code calls the role its Haiku-class
 * model plays): quick side calls that tools make, today WebFetch's answer about a page. A call goes
 * through the session's provider registry with the one retry strategy, and is priced into the
 * session's cost ledger under its own model's name, so `total_cost_usd`, `run_cost_usd`, `modelUsage`
 * and `maxBudgetUsd` all count it.
 *
 * Which model: the `smallFastModel` option, else `GOAT_SMALL_FAST_MODEL`, else Claude Code's variables
 * `ANTHROPIC_DEFAULT_HAIKU_MODEL` and `ANTHROPIC_SMALL_FAST_MODEL`. There is no default: Goat serves
 * any provider, and guessing a small model for one could fail or bill a model nobody chose.
 */
import { expandModelAlias, type ProviderRegistry } from "../llm/resolve.js";
import { textOf } from "../llm/types.js";
import type { ModelCaller } from "../loop/loop-config.js";
import type { SmallModel } from "../tools/web/web-fetch.js";
import { type CostLedger, meteredModelCaller } from "./metered-caller.js";

/** Environment variables that name the small/fast model, in order of precedence. */
const SMALL_FAST_MODEL_ENV = [
  "GOAT_SMALL_FAST_MODEL",
  "ANTHROPIC_DEFAULT_HAIKU_MODEL",
  "ANTHROPIC_SMALL_FAST_MODEL",
] as const;

/**
 * The small/fast model's `provider/model` id, or undefined when none is configured. The option must
 * name a model the registry can reach (it throws otherwise); a variable that does not (say, a
 * Bedrock id set for Claude Code) is reported and left unused, so it cannot stop a session.
 */
export function resolveSmallFastModel(
  option: string | undefined,
  env: Record<string, string | undefined>,
  registry: ProviderRegistry,
  report: (message: string) => void,
): string | undefined {
  if (option !== undefined) return registry.resolve(expandModelAlias(option)).id;
  for (const name of SMALL_FAST_MODEL_ENV) {
    const value = env[name]?.trim();
    if (!value) continue;
    try {
      return registry.resolve(expandModelAlias(value)).id;
    } catch (error) {
      report(
        `${name}=${value} names no model Goat can reach (${(error as Error).message}); WebFetch returns pages without a small/fast model's answer. Set smallFastModel to choose one.`,
      );
      return undefined;
    }
  }
  return undefined;
}

/** What a small-model call reads from its session when it runs (made after the tools are). */
export interface SmallModelSession extends CostLedger {
  callModel: ModelCaller;
}

/** The small/fast model `model` of a session; `session()` is read at each call. */
export function createSmallModel(model: string, session: () => SmallModelSession): SmallModel {
  return {
    model,
    async complete({ system, prompt, maxTokens }, signal) {
      const s = session();
      const limit = s.maxOutputTokensOf(model);
      // Priced into the session's ledger as it arrives (a fallback model's answer at its own price).
      const stream = meteredModelCaller(s.callModel, () => s)(
        model,
        {
          system,
          messages: [{ role: "user", content: prompt }],
          maxTokens: limit === undefined ? maxTokens : Math.min(maxTokens, limit),
          signal,
        },
        () => {},
      );
      let answer: Parameters<typeof textOf>[0] | undefined;
      for await (const event of stream) {
        if (event.type === "message_end") answer = event.message;
      }
      if (!answer) throw new Error("the stream ended without an answer");
      const text = textOf(answer).trim();
      if (text === "") throw new Error("it answered with no text");
      return text;
    },
  };
}
