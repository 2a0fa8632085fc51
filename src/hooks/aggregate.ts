/**
 * Folds the outputs of all hooks that ran for one event into one answer the loop can act on. The
 * rules: `continue: false` wins; permission decisions deny > ask > allow; blocks and their reasons
 * accumulate; messages and context are collected in registration order (not completion order, so the
 * result does not depend on which hook was faster); for single-valued replacements the last hook in
 * registration order wins.
 */
import type {
  HookEvent,
  HookJSONOutput,
  HookPermissionDecision,
  PermissionRequestDecision,
} from "./types.js";

/** What happened to one hook, for `system/hook_response`-like messages. */
export interface HookOutcome {
  /** Stable per registration: `hook_<n>` in the order hooks were registered. */
  hookId: string;
  /** `<Event>:<matcher or *>`, like Claude Code's hook_name. */
  hookName: string;
  event: HookEvent;
  kind: "callback" | "command";
  /** The command text, or the callback's function name. */
  label: string;
  /** `error` = threw, timed out, exited non-zero (not 2) or gave invalid output; `cancelled` = run aborted. */
  outcome: "success" | "error" | "cancelled";
  /** The validated output that was applied (exit 2 and plain text are converted into this form). */
  output?: HookJSONOutput;
  stdout?: string;
  stderr?: string;
  exitCode?: number | null;
  durationMs: number;
  /** Set when outcome is `error` or `cancelled`. */
  error?: string;
}

/** A hook that failed without stopping the run; the loop surfaces it as an event. */
export interface HookError {
  /** Readable name of the hook: its command, or the callback name and matcher. */
  hook: string;
  event: HookEvent;
  message: string;
}

/** Everything the hooks of one event said, folded together. */
export interface AggregatedHookResult {
  event: HookEvent;
  /** False when any hook returned `continue: false`: the loop ends the run after this step. */
  continue: boolean;
  stopReason?: string;
  /**
   * True when a hook blocked: `decision: 'block'`, exit code 2, or (PreToolUse, PermissionRequest) a
   * deny. Meaning per event: Stop/SubagentStop = keep going with `blockReason` as the next message;
   * UserPromptSubmit = drop the prompt; PostToolUse(Failure) = tell the model `blockReason`;
   * PreCompact = skip compaction; PreToolUse = do not run the tool.
   */
  blocked: boolean;
  /** The reasons of all blocking hooks, joined by newlines. */
  blockReason?: string;
  /** PreToolUse: the strongest decision (deny > ask > allow), absent when no hook decided. */
  permissionDecision?: HookPermissionDecision;
  /** Reasons given with the winning decision, joined by newlines. */
  permissionDecisionReason?: string;
  /** PreToolUse: the replacement input; when several hooks give one, the last registered wins. */
  updatedInput?: Record<string, unknown>;
  /** PostToolUse: the replacement tool output (last registered wins); `hasUpdatedToolOutput` tells if set. */
  updatedToolOutput?: unknown;
  hasUpdatedToolOutput: boolean;
  /** PermissionRequest: deny wins over allow; absent when no hook decided. */
  permissionRequestDecision?: PermissionRequestDecision;
  /** Context for the next model call, in registration order. */
  additionalContext: string[];
  /** Messages for the user, in registration order. */
  systemMessages: string[];
  suppressOutput: boolean;
  errors: HookError[];
  outcomes: HookOutcome[];
}

/** The result of running no hooks at all: the loop's default path. */
export function emptyHookResult(event: HookEvent): AggregatedHookResult {
  return {
    event,
    continue: true,
    blocked: false,
    hasUpdatedToolOutput: false,
    additionalContext: [],
    systemMessages: [],
    suppressOutput: false,
    errors: [],
    outcomes: [],
  };
}

/** Events where a block changes what the loop does; elsewhere a block reason is only shown to the user. */
const BLOCKABLE = new Set<HookEvent>([
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "UserPromptSubmit",
  "Stop",
  "SubagentStop",
  "PreCompact",
  "PermissionRequest",
]);

/** The output equivalent to "this hook blocks, because `reason`" (exit code 2, or onFailure: block). */
export function blockingOutput(event: HookEvent, reason: string): HookJSONOutput {
  if (event === "PreToolUse") {
    return {
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: reason,
      },
    };
  }
  if (event === "PermissionRequest") {
    return {
      hookSpecificOutput: {
        hookEventName: "PermissionRequest",
        decision: { behavior: "deny", message: reason },
      },
    };
  }
  if (BLOCKABLE.has(event)) return { decision: "block", reason };
  return { systemMessage: reason };
}

const DECISION_RANK: Record<HookPermissionDecision, number> = { allow: 1, ask: 2, deny: 3 };

/** Folds outcomes (in registration order) into one result; errors are taken from failed outcomes. */
export function aggregateHookOutcomes(event: HookEvent, outcomes: HookOutcome[]): AggregatedHookResult {
  const result = emptyHookResult(event);
  result.outcomes = outcomes;
  const stopReasons: string[] = [];
  const blockReasons: string[] = [];
  const decisionReasons: Partial<Record<HookPermissionDecision, string[]>> = {};
  const denyMessages: string[] = [];
  for (const o of outcomes) {
    if (o.outcome !== "success") {
      result.errors.push({ hook: o.label, event, message: o.error ?? o.outcome });
    }
    const out = o.output;
    if (out === undefined) continue;
    if (out.continue === false) {
      result.continue = false;
      if (out.stopReason) stopReasons.push(out.stopReason);
    }
    if (out.suppressOutput) result.suppressOutput = true;
    if (out.systemMessage) result.systemMessages.push(out.systemMessage);
    const spec = (out.hookSpecificOutput ?? {}) as Record<string, any>;
    if (typeof spec.additionalContext === "string" && spec.additionalContext !== "") {
      result.additionalContext.push(spec.additionalContext);
    }
    if (event === "PreToolUse") {
      // The legacy top-level decision still works: approve = allow, block = deny.
      const legacy = out.decision === "approve" ? "allow" : out.decision === "block" ? "deny" : undefined;
      const decision: HookPermissionDecision | undefined = spec.permissionDecision ?? legacy;
      if (decision !== undefined) {
        const reason: string | undefined = spec.permissionDecisionReason ?? out.reason;
        if (
          !result.permissionDecision ||
          DECISION_RANK[decision] > DECISION_RANK[result.permissionDecision]
        ) {
          result.permissionDecision = decision;
        }
        if (reason) decisionReasons[decision] = [...(decisionReasons[decision] ?? []), reason];
      }
      if (spec.updatedInput !== undefined) result.updatedInput = spec.updatedInput;
    } else if (event === "PermissionRequest") {
      const d = spec.decision as PermissionRequestDecision | undefined;
      if (d?.behavior === "deny") {
        if (d.message) denyMessages.push(d.message);
        const prev = result.permissionRequestDecision;
        result.permissionRequestDecision = {
          behavior: "deny",
          interrupt: (prev?.behavior === "deny" && prev.interrupt === true) || d.interrupt === true,
        };
      } else if (d?.behavior === "allow" && result.permissionRequestDecision?.behavior !== "deny") {
        result.permissionRequestDecision = d;
      }
    } else if (out.decision === "block" && BLOCKABLE.has(event)) {
      result.blocked = true;
      blockReasons.push(out.reason || `blocked by ${o.label}`);
    }
    if (event === "PostToolUse") {
      const replacement = "updatedToolOutput" in spec ? spec.updatedToolOutput : spec.updatedMCPToolOutput;
      if (replacement !== undefined) {
        result.updatedToolOutput = replacement;
        result.hasUpdatedToolOutput = true;
      }
    }
  }
  if (stopReasons.length > 0) result.stopReason = stopReasons.join("\n");
  if (result.permissionDecision) {
    const reasons = decisionReasons[result.permissionDecision];
    if (reasons?.length) result.permissionDecisionReason = reasons.join("\n");
    if (result.permissionDecision === "deny") {
      result.blocked = true;
      result.blockReason = result.permissionDecisionReason ?? "denied by a PreToolUse hook";
    }
  }
  if (result.permissionRequestDecision?.behavior === "deny") {
    if (denyMessages.length > 0) result.permissionRequestDecision.message = denyMessages.join("\n");
    result.blocked = true;
    result.blockReason = result.permissionRequestDecision.message ?? "denied by a PermissionRequest hook";
  }
  if (blockReasons.length > 0) result.blockReason = blockReasons.join("\n");
  return result;
}
