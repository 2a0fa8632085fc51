/**
 * Which model the session calls: the configured one, replaced by `setModel` for the rest of the
 * session, and, for the one run a slash command starts, the command's own `model`.
 */
import { expandModelAlias } from "../llm/resolve.js";
import type { SessionProviders } from "./session-providers.js";
import type { SessionTranscript } from "./session-transcript.js";

/** The session's model in force. */
export interface ModelChoice {
  /** The session's model: `setModel`'s, else the configured one. */
  current(): string;
  /** The model of the next call: the running slash command's, else `current()`. */
  forTurn(): string;
  /** Uses `model` from the next call on (undefined: back to the configured model); the transcript records it. */
  set(model: string | undefined): void;
  /** A slash command's model for the run it starts (undefined: none); cleared when the run is recorded. */
  setTurnModel(model: string | undefined): void;
  /** The model's full id, once `checkModel` accepts it (it throws otherwise). */
  usable(model: string): string;
}

/** Builds the session's model choice over its providers. */
export function createModelChoice(
  providers: Pick<SessionProviders, "configuredModel" | "checkModel">,
  transcript: Pick<SessionTranscript, "binding">,
): ModelChoice {
  const { configuredModel, checkModel } = providers;
  let override: string | undefined;
  let turnModel: string | undefined;
  const current = () => override ?? configuredModel;
  return {
    current,
    forTurn: () => turnModel ?? current(),
    set(model) {
      if (model !== undefined) checkModel(model);
      override = model === undefined ? undefined : expandModelAlias(model);
      transcript.binding?.recordModelChange(model ?? configuredModel);
    },
    setTurnModel(model) {
      turnModel = model;
    },
    usable(model) {
      checkModel(model);
      return expandModelAlias(model);
    },
  };
}
