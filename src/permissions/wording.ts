/**
 * How a denial tells the model (and through it the user) what would have allowed the call. A library
 * host configures Goat with `query()` options, so by default the words are those options
 * (`allowedTools`, `permissionMode`, `canUseTool`); a host with other controls, such as the `goat`
 * command line and its flags, gives its own words with the `permissionWording` option.
 */

import { formatRule } from "./rule-parse.js";
import type { PermissionUpdate } from "./types.js";

/** The phrases a denial is built from; each names the host's own control. */
export interface PermissionWording {
  /** Why nobody was asked, after "Permission to use X is required (why), and …". */
  nobodyAsked: string;
  /** A way to allow these rules, e.g. `add allowedTools: ['Bash(npm test:*)']`. */
  allowRules(rules: string[]): string;
  /** A way to open these directories to the file tools. */
  addDirectories(directories: string[]): string;
  /** A way to start in this permission mode. */
  useMode(mode: string): string;
  /** The last way offered, when there is one (e.g. a callback that decides at run time). */
  decideAtRunTime?: string;
}

/** The words of `query()`'s options: what a library host can set. */
export const LIBRARY_WORDING: PermissionWording = {
  nobodyAsked: "no canUseTool callback is set to ask for it",
  allowRules: (rules) => `add allowedTools: [${rules.map((r) => `'${r}'`).join(", ")}]`,
  addDirectories: (directories) =>
    `add ${directories.map((d) => `'${d}'`).join(", ")} to additionalDirectories`,
  useMode: (mode) => `use permissionMode '${mode}'`,
  decideAtRunTime: "pass a canUseTool callback to decide at run time",
};

/** The rule texts and other advice in suggestions, as one sentence for a "how to allow it" message. */
export function describeSuggestions(
  updates: PermissionUpdate[],
  wording: PermissionWording = LIBRARY_WORDING,
): string {
  const tips: string[] = [];
  const rules = updates.flatMap((u) => (u.type === "addRules" ? u.rules.map(formatRule) : []));
  if (rules.length > 0) tips.push(wording.allowRules(rules));
  for (const u of updates) {
    if (u.type === "addDirectories") tips.push(wording.addDirectories(u.directories));
    if (u.type === "setMode") tips.push(wording.useMode(u.mode));
  }
  if (wording.decideAtRunTime) tips.push(wording.decideAtRunTime);
  return tips.length > 0 ? `To allow it, ${tips.join(", or ")}.` : "";
}
