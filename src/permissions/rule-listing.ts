/**
 * The session's permission rules and directories as Claude Code's `list_permission_rules` reports
 * them: each rule with its source and where it lives, the directories with where they came from, and
 * whether only managed rules count.
 */
import type { PermissionRule } from "./rule-parse.js";
import type { PermissionUpdateDestination } from "./types.js";

/** The engine's rules and directories as Claude Code's `list_permission_rules` reports them. */
export interface PermissionRulesListing {
  rules: Array<{
    behavior: "allow" | "deny" | "ask";
    source: string;
    rule: string;
    /** `persistent` for settings files, `session` for flags and answers, `readonly` for managed rules. */
    editability: "persistent" | "session" | "readonly";
    /** Set for a rule ignored because only managed rules count (allowManagedPermissionRulesOnly). */
    notInEffect?: true;
  }>;
  workspaceDirectories: Array<{ path: string; source: string }>;
  originalCwd: string;
  managedOnly: boolean;
}

/** Where each source's rules live, as Claude Code labels them. */
const EDITABILITY: Record<PermissionUpdateDestination, "persistent" | "session" | "readonly"> = {
  userSettings: "persistent",
  projectSettings: "persistent",
  localSettings: "persistent",
  session: "session",
  cliArg: "session",
  flagSettings: "session",
  policySettings: "readonly",
};

/** The listing of `rules` and `directories` (the working directory not among them). */
export function listRules(
  rules: readonly PermissionRule[],
  directories: Array<{ path: string; source: string }>,
  cwd: string,
  managedOnly: boolean,
): PermissionRulesListing {
  return {
    rules: rules.map((r) => ({
      behavior: r.behavior,
      source: r.source,
      rule: r.text,
      editability: EDITABILITY[r.source],
      ...(managedOnly && r.source !== "policySettings" ? { notInEffect: true as const } : {}),
    })),
    workspaceDirectories: directories,
    originalCwd: cwd,
    managedOnly,
  };
}
