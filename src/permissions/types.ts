/**
 * The public data model of permissions: modes, rules, the updates a host can apply ("always allow"),
 * the `canUseTool` callback, and the decision the engine hands back to the loop. The shapes follow the
 * Claude Agent SDK so hosts written for it carry over.
 */
import type { ConfinementLevel } from "../sandbox/confinement.js";

/** How the engine treats calls that no rule decides. `bypassPermissions` must be asked for explicitly. */
export type PermissionMode = "default" | "acceptEdits" | "plan" | "bypassPermissions" | "dontAsk";

/** Every permission mode, in the order a UI would list them. */
export const PERMISSION_MODES: readonly PermissionMode[] = [
  "default",
  "acceptEdits",
  "plan",
  "bypassPermissions",
  "dontAsk",
];

/** What a rule does when it matches. */
export type PermissionBehavior = "allow" | "deny" | "ask";

/** A rule as data: `Bash(npm test:*)` is `{toolName: "Bash", ruleContent: "npm test:*"}`. */
export interface PermissionRuleValue {
  toolName: string;
  ruleContent?: string;
}

/**
 * Where an update is meant to be kept. The engine keeps every update in memory for the session.
 * `flagSettings` is the layer `applyFlagSettings()` replaces; `policySettings` holds managed rules,
 * which no update can remove.
 */
export type PermissionUpdateDestination =
  | "userSettings"
  | "projectSettings"
  | "localSettings"
  | "session"
  | "cliArg"
  | "flagSettings"
  | "policySettings";

/** A change to the permission state, as suggested to and returned by `canUseTool`. */
export type PermissionUpdate =
  | {
      type: "addRules" | "replaceRules" | "removeRules";
      rules: PermissionRuleValue[];
      behavior: PermissionBehavior;
      destination: PermissionUpdateDestination;
    }
  | { type: "setMode"; mode: PermissionMode; destination: PermissionUpdateDestination }
  | {
      type: "addDirectories" | "removeDirectories";
      directories: string[];
      destination: PermissionUpdateDestination;
    };

/** What `canUseTool` answers. */
export type PermissionResult =
  | {
      behavior: "allow";
      /** Replaces the tool input (e.g. a path the user corrected). */
      updatedInput?: Record<string, unknown>;
      /** Applied before the call runs; e.g. the suggestions, for "always allow". */
      updatedPermissions?: PermissionUpdate[];
    }
  | {
      behavior: "deny";
      message: string;
      /** Stops the whole run, not only this call. */
      interrupt?: boolean;
    };

/** Options passed to `canUseTool` next to the tool name and input. */
export interface CanUseToolOptions {
  signal: AbortSignal;
  toolUseID: string;
  /** Updates that would allow this call from now on; return them as `updatedPermissions`. */
  suggestions?: PermissionUpdate[];
  /** The resolved path outside the allowed directories that caused the question, if any. */
  blockedPath?: string;
  /** Why the engine is asking, in words. */
  decisionReason?: string;
}

/** The host's permission callback, asked whenever the outcome is "ask". */
export type CanUseTool = (
  toolName: string,
  input: Record<string, unknown>,
  options: CanUseToolOptions,
) => Promise<PermissionResult>;

/**
 * What the PreToolUse hooks decided about a call, passed in by the loop (the hooks' own output value
 * is `HookPermissionDecision`, Claude's name, in `goat-agent/hooks`).
 */
export interface HookVerdict {
  behavior: PermissionBehavior;
  /** The hook's `permissionDecisionReason`. */
  reason?: string;
}

/** Where a decision came from, for transcripts and `permission_denials`. */
export type DecisionReason =
  | "hook"
  | "rule"
  | "mode"
  | "read-only"
  | "scope"
  | "sandbox"
  | "callback"
  | "callback-error"
  | "no-callback"
  | "aborted";

/** What the loop asks the engine about one tool call (after input validation and PreToolUse hooks). */
export interface PermissionRequest {
  toolName: string;
  input: Record<string, unknown>;
  /** The tool's declared side effect (`none` tools in scope run without asking). */
  sideEffect: "none" | "read" | "mutating";
  /**
   * For Bash: whether the tool runs a call confined as a decision's `confine` asks (`Tool.confines`).
   * False: the engine does not let a line through on its own analysis (it asks); undefined: assumed.
   */
  confines?: boolean;
  toolUseID: string;
  signal: AbortSignal;
  hookDecision?: HookVerdict;
}

/**
 * The engine's answer: run the call with `input`, or send `message` back as an `isError` result.
 * `confine` is set on a Bash call the engine allowed on its own analysis (no rule, hook, user answer
 * or bypass mode): the command is to run confined at that level where a sandbox can start, so a
 * mistake in the analysis costs nothing (`read-only`: it may change nothing; `workspace`: it may
 * write the allowed directories).
 */
export type PermissionDecision =
  | {
      behavior: "allow";
      input: Record<string, unknown>;
      rule?: string;
      reason: DecisionReason;
      confine?: ConfinementLevel;
    }
  | { behavior: "deny"; message: string; interrupt?: boolean; reason: DecisionReason; rule?: string };
