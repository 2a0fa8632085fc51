/**
 * Thinking and effort of a session: what each model call sends, from the `thinking`, `effort` and
 * (deprecated) `maxThinkingTokens` options and `setMaxThinkingTokens()`, fitted to what the model is
 * known to take. A model the catalog does not know gets the settings as given (a gateway's own model,
 * a model newer than Goat); a known model gets only what it supports, and the user is told once when
 * something was left out.
 */
import type { ModelCatalog } from "../llm/catalog.js";
import { effortLevelsOf } from "../llm/model-list.js";
import type { EffortLevel, ThinkingConfig } from "../llm/types.js";

/** What one call sends. */
interface CallReasoning {
  thinking?: ThinkingConfig;
  effort?: EffortLevel;
}

/** A session's thinking and effort settings. */
export interface SessionReasoning {
  /** The settings for the next call to `model` (`provider/model`). */
  forModel(model: string): CallReasoning;
  /**
   * `setMaxThinkingTokens`: a fixed budget (> 0), or undefined / 0 for no thinking. `display` replaces
   * the display mode for the rest of the session (null: none, the API's default); left out, the mode
   * in force stays (the session's `thinking.display` until a call replaced it).
   */
  setThinkingBudget(tokens: number | undefined, display?: ThinkingDisplay | null): void;
  /** Replaces the thinking setting (undefined: the model's default, nothing sent). */
  setThinking(thinking: ThinkingConfig | undefined): void;
  /** Replaces the effort level (undefined: the model's default, nothing sent). */
  setEffort(effort: EffortLevel | undefined): void;
}

/** What Anthropic's `thinking.display` takes. */
export type ThinkingDisplay = "summarized" | "omitted";

/** Effort levels from least to most, the order used to fit a level to a model. */
const EFFORT_ORDER: readonly EffortLevel[] = ["minimal", "low", "medium", "high", "xhigh", "max"];

/** Creates the session's settings; `report` receives each "left out" notice once. */
export function createSessionReasoning(
  options: {
    thinking?: ThinkingConfig;
    effort?: EffortLevel;
    maxThinkingTokens?: number;
    /** The call's output limit, for the budget that stands in for adaptive thinking. */
    maxTokens: number;
  },
  catalog: ModelCatalog,
  report: (message: string) => void,
): SessionReasoning {
  let thinking: ThinkingConfig | undefined =
    options.thinking ??
    (options.maxThinkingTokens ? { type: "enabled", budgetTokens: options.maxThinkingTokens } : undefined);
  let effort = options.effort;
  /** The display mode budgets set by `setThinkingBudget` carry (the session's own until replaced). */
  let display: ThinkingDisplay | undefined =
    options.thinking && options.thinking.type !== "disabled" ? options.thinking.display : undefined;
  const reported = new Set<string>();
  const once = (key: string, message: string) => {
    if (reported.has(key)) return;
    reported.add(key);
    report(message);
  };
  const memo = new Map<string, CallReasoning>();

  const fitToModel = (model: string): CallReasoning => {
    const info = catalog.get(model);
    if (!info) return { thinking, effort };
    const out: CallReasoning = {};
    if (thinking && thinking.type !== "disabled" && info.reasoning === false) {
      once(`${model}:thinking`, `${model} does not think: the thinking setting is not sent to it.`);
    } else if (thinking?.type === "adaptive" && info.provider === "anthropic" && !info.adaptiveThinking) {
      // Older Claude models take only a fixed budget: adaptive becomes one.
      const budgetTokens = Math.max(1024, Math.min(16_000, Math.floor(options.maxTokens / 2)));
      out.thinking = thinking.display
        ? { type: "enabled", budgetTokens, display: thinking.display }
        : { type: "enabled", budgetTokens };
    } else if (thinking) out.thinking = thinking;
    if (effort) {
      const levels = effortLevelsOf(info);
      if (levels.length === 0) {
        once(`${model}:effort`, `${model} takes no effort level: effort "${effort}" is not sent to it.`);
      } else out.effort = fitEffort(effort, levels);
    }
    return out;
  };

  return {
    forModel(model) {
      let answer = memo.get(model);
      if (!answer) {
        answer = fitToModel(model);
        memo.set(model, answer);
      }
      return answer;
    },
    setThinkingBudget(tokens, nextDisplay) {
      if (nextDisplay !== undefined) display = nextDisplay ?? undefined;
      thinking =
        tokens && tokens > 0
          ? { type: "enabled", budgetTokens: tokens, ...(display && { display }) }
          : undefined;
      memo.clear();
    },
    setThinking(next) {
      thinking = next;
      memo.clear();
    },
    setEffort(next) {
      effort = next;
      memo.clear();
    },
  };
}

/** The asked level when the model takes it, else the nearest lower one it takes (else its lowest). */
function fitEffort(asked: EffortLevel, levels: readonly EffortLevel[]): EffortLevel {
  if (levels.includes(asked)) return asked;
  const rank = EFFORT_ORDER.indexOf(asked);
  const lower = levels.filter((l) => EFFORT_ORDER.indexOf(l) < rank);
  return lower.length > 0 ? lower[lower.length - 1] : levels[0];
}
