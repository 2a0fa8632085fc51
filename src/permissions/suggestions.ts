/**
 * The permission updates offered with a question ("always allow"): a `Bash(npm run test:*)` rule for a
 * command, acceptEdits for an edit, the directory for a path outside the scope, a domain rule for
 * WebFetch. A host returns them as `updatedPermissions`; the engine also quotes them in the message a
 * headless run gets, so a developer knows exactly what to add.
 */
import path from "node:path";
import type { SimpleCommand } from "./bash-split.js";
import { isReadOnlyCommand } from "./command-effects.js";
import type { CallFacts } from "./rule-match.js";
import { formatRule } from "./rule-parse.js";
import { isFileEditTool, isFileReadTool } from "./tool-kinds.js";
import type { PermissionRuleValue, PermissionUpdate } from "./types.js";

/** Subcommand-style words worth keeping in a suggested prefix (`npm run build`, not `cat notes.txt`). */
const WORDISH = /^[A-Za-z][A-Za-z0-9_-]*$/;
/** Programs whose second word names a script to run, so the third word belongs in the prefix. */
const RUNNERS = new Set(["run", "exec", "x"]);

/**
 * A prefix rule for one command: `npm run test -- --watch` → `npm run test:*`, `git commit -m x` →
 * `git commit:*`. Falls back to the exact command when its first word is not a plain program name.
 */
function suggestCommandRule(cmd: SimpleCommand): PermissionRuleValue {
  const words = cmd.argv;
  if (cmd.text !== cmd.commandText || words.length === 0 || !/^[A-Za-z0-9_./-]+$/.test(words[0])) {
    return { toolName: "Bash", ruleContent: cmd.text };
  }
  const prefix = [words[0]];
  if (words[1] !== undefined && WORDISH.test(words[1])) {
    prefix.push(words[1]);
    if (RUNNERS.has(words[1]) && words[2] !== undefined && /^[A-Za-z0-9][A-Za-z0-9:_.-]*$/.test(words[2])) {
      prefix.push(words[2]);
    }
  }
  return { toolName: "Bash", ruleContent: `${prefix.join(" ")}:*` };
}

/**
 * Updates that would let this call through next time. `partAllowed[i]` marks Bash parts that rules
 * already allow, so they get no suggestion of their own.
 */
export function suggestUpdates(
  facts: CallFacts,
  outsidePath?: string,
  partAllowed?: boolean[],
): PermissionUpdate[] {
  const { toolName, input } = facts;
  if (toolName === "Bash") {
    if (!facts.bash?.ok) {
      const command = typeof input.command === "string" ? input.command.trim() : "";
      return command === "" ? [] : [addRules([{ toolName: "Bash", ruleContent: command }])];
    }
    const seen = new Set<string>();
    const rules: PermissionRuleValue[] = [];
    facts.bash.commands.forEach((cmd, i) => {
      if (partAllowed?.[i] || isReadOnlyCommand(cmd)) return;
      const rule = suggestCommandRule(cmd);
      const key = formatRule(rule);
      if (!seen.has(key)) rules.push(rule);
      seen.add(key);
    });
    return rules.length > 0 ? [addRules(rules)] : [];
  }
  if (outsidePath !== undefined && (isFileReadTool(toolName) || isFileEditTool(toolName))) {
    const dir = isDirectoryLike(toolName) ? outsidePath : path.dirname(outsidePath);
    return [
      { type: "addDirectories", directories: [dir], destination: "session" },
      addRules([{ toolName: isFileEditTool(toolName) ? "Edit" : "Read", ruleContent: `/${dir}/**` }]),
    ];
  }
  if (isFileEditTool(toolName)) return [{ type: "setMode", mode: "acceptEdits", destination: "session" }];
  if (toolName === "WebFetch" && typeof input.url === "string") {
    const host = hostOf(input.url);
    if (host) return [addRules([{ toolName, ruleContent: `domain:${host}` }])];
  }
  return [addRules([{ toolName }])];
}

function addRules(rules: PermissionRuleValue[]): PermissionUpdate {
  return { type: "addRules", rules, behavior: "allow", destination: "session" };
}

function isDirectoryLike(toolName: string): boolean {
  return toolName === "Glob" || toolName === "Grep" || toolName === "LS";
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase() || undefined;
  } catch {
    // Not a URL: no domain to suggest; the bare tool rule is offered instead.
    return undefined;
  }
}
