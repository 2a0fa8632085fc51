/**
 * The session's rules and directories as plain data, and the pure functions that apply
 * PermissionUpdates to them (add, replace or remove rules; add or remove directories). Every update
 * lives in memory for the session, whatever its destination; writing settings files is not done here.
 */
import { resolveToolPath } from "../tools/paths.js";
import { compileRule, formatRule, type PermissionRule, type RuleContext } from "./rule-parse.js";
import type { PermissionBehavior, PermissionUpdate, PermissionUpdateDestination } from "./types.js";

/** Rule lists as users write them: allow, deny and ask arrays of rule strings. */
export interface RuleLists {
  allow?: string[];
  deny?: string[];
  ask?: string[];
}

/** Compiles rule lists from one source; throws PermissionRuleError naming the first bad rule. */
export function compileRuleLists(
  lists: RuleLists,
  source: PermissionUpdateDestination,
  ctx: RuleContext,
): PermissionRule[] {
  const out: PermissionRule[] = [];
  for (const behavior of ["deny", "ask", "allow"] as const) {
    for (const text of lists[behavior] ?? []) out.push(compileRule(text, behavior, source, ctx));
  }
  return out;
}

/** Returns the rules after one rule update (addRules, replaceRules, removeRules). */
export function applyRuleUpdate(
  rules: readonly PermissionRule[],
  update: Extract<PermissionUpdate, { rules: unknown }>,
  ctx: RuleContext,
): PermissionRule[] {
  const { behavior, destination } = update;
  const incoming = update.rules.map((value) => compileRule(value, behavior, destination, ctx));
  switch (update.type) {
    case "addRules":
      return [...rules, ...incoming.filter((r) => !hasRule(rules, r.text, behavior))];
    case "replaceRules":
      return [...rules.filter((r) => !(r.behavior === behavior && r.source === destination)), ...incoming];
    case "removeRules": {
      // Managed (policy) rules stay whatever a host asks: they are not the session's to remove.
      const gone = new Set(incoming.map((r) => r.text));
      return rules.filter(
        (r) => r.source === "policySettings" || !(r.behavior === behavior && gone.has(r.text)),
      );
    }
  }
}

/**
 * Returns the rules with every rule of `source` replaced by `lists` (compiled first, so a bad rule
 * throws before anything changes). `undefined` removes the source's rules.
 */
export function replaceSourceRules(
  rules: readonly PermissionRule[],
  source: PermissionUpdateDestination,
  lists: RuleLists | undefined,
  ctx: RuleContext,
): PermissionRule[] {
  const incoming = lists ? compileRuleLists(lists, source, ctx) : [];
  return [...rules.filter((r) => r.source !== source), ...incoming];
}

/** Returns the scope directories (real paths) after adding or removing some. */
export function applyDirectoryUpdate(
  dirs: readonly string[],
  update: Extract<PermissionUpdate, { directories: unknown }>,
  cwd: string,
): string[] {
  const touched = update.directories.map((d) => resolveToolPath(d, cwd));
  if (update.type === "addDirectories") return [...dirs, ...touched.filter((d) => !dirs.includes(d))];
  return dirs.filter((d) => !touched.includes(d));
}

function hasRule(rules: readonly PermissionRule[], text: string, behavior: PermissionBehavior): boolean {
  return rules.some((r) => r.behavior === behavior && formatRule(r.value) === text);
}
