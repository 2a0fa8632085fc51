/**
 * One compaction of a session's history, the same whether the loop decided it (proactively, or after a
 * context overflow) or the host asked for it (`Query.compact()`, `runtime.compactNow`): the compactor
 * makes the new history (the runtime's compactor also runs the PreCompact/PostCompact hooks and writes
 * the boundary into the transcript), the new history replaces the old one, the usage of the last call
 * is forgotten (it described the old history), and a `context_compacted` event announces it (the SDK
 * stream turns it into the `compact_boundary` message).
 */
import type { LoopSession } from "./context.js";
import type { CompactionTrigger, LoopConfig } from "./loop-config.js";

/**
 * Compacts `session` with `config.compact`. Returns false when the config has no compactor. Throws what
 * the compactor throws, with the history left as it was; the caller decides what a failure means
 * (the loop counts them, a manual request rejects). Leaves the agent's phase at `compacting`.
 */
export async function compactSession(
  config: Pick<LoopConfig, "compact" | "getModel" | "state" | "emit">,
  session: LoopSession,
  request: { trigger: CompactionTrigger; signal: AbortSignal; instructions?: string },
): Promise<boolean> {
  if (!config.compact) return false;
  config.state.set("compacting");
  const outcome = await config.compact(session.messages, {
    trigger: request.trigger,
    signal: request.signal,
    model: config.getModel(),
    instructions: request.instructions,
  });
  session.messages = outcome.messages;
  session.lastCallUsage = undefined;
  session.lastCallMessageCount = 0;
  config.emit({
    type: "context_compacted",
    report: outcome.summary,
    trigger: request.trigger,
    preTokens: outcome.preTokens,
    postTokens: outcome.postTokens,
  });
  return true;
}
