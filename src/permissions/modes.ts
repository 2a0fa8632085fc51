/**
 * What each permission mode says about a call that no rule decided: default asks for anything that
 * changes things, acceptEdits also lets file edits (and plain file commands) inside the allowed
 * directories through, plan refuses anything that changes things, bypassPermissions allows all, and
 * dontAsk turns every "ask" into a denial (the engine does that part).
 */
import type { SimpleCommand } from "./bash-split.js";
import { firstOutsideScope, resolvePath } from "./path-scope.js";
import { fileCommandPaths, isReadOnlyCommand } from "./read-only-commands.js";
import type { CallFacts } from "./rule-match.js";
import type { PermissionRule } from "./rule-parse.js";
import { isFileEditTool, isFileReadTool } from "./tool-kinds.js";
import type { DecisionReason, PermissionMode, PermissionRequest } from "./types.js";

/** The mode's verdict: allow (with why), or ask with a reason in words and maybe the blocking path. */
export type ModeVerdict =
  | { behavior: "allow"; reason: DecisionReason }
  | { behavior: "ask"; why: string; blockedPath?: string };

/** Where a mode looks: the real paths of the working directory and the additional directories. */
export interface ModeContext {
  mode: PermissionMode;
  cwd: string;
  scopeDirs: readonly string[];
}

/** True when the call cannot change anything: reading tools, read-only shell lines, `none`/`read` tools. */
export function isReadOnlyCall(facts: CallFacts, sideEffect: PermissionRequest["sideEffect"]): boolean {
  if (facts.toolName === "Bash") {
    return facts.bash?.ok === true && facts.bash.commands.every((cmd) => isReadOnlyCommand(cmd));
  }
  if (isFileEditTool(facts.toolName)) return false;
  return isFileReadTool(facts.toolName) || sideEffect !== "mutating";
}

/** The message a model gets when plan mode refuses a call. */
export function planModeMessage(toolName: string): string {
  return (
    `${toolName} was not run: the session is in plan mode, where you may only read and plan, not change ` +
    "anything. Finish your investigation and present your plan; changes can be made once the user leaves plan mode."
  );
}

/**
 * Decides a call that no rule decided, by mode. `partRules` (Bash) says which parts allow rules
 * already cover, so `npm test && ls` passes with `Bash(npm test:*)` because `ls` is read-only.
 */
export function decideByMode(
  ctx: ModeContext,
  facts: CallFacts,
  sideEffect: PermissionRequest["sideEffect"],
  partRules?: ReadonlyArray<PermissionRule | undefined>,
): ModeVerdict {
  if (ctx.mode === "bypassPermissions") return { behavior: "allow", reason: "mode" };
  const { toolName } = facts;
  if (toolName === "Bash") return decideBash(ctx, facts, partRules);
  const outside = facts.paths ? firstOutsideScope(facts.paths, ctx.scopeDirs) : undefined;
  if (isFileReadTool(toolName)) {
    if (outside === undefined) return { behavior: "allow", reason: "read-only" };
    return { behavior: "ask", why: `${outside} is outside the allowed directories`, blockedPath: outside };
  }
  if (isFileEditTool(toolName)) {
    if (outside !== undefined) {
      return { behavior: "ask", why: `${outside} is outside the allowed directories`, blockedPath: outside };
    }
    if (ctx.mode === "acceptEdits") return { behavior: "allow", reason: "mode" };
    return { behavior: "ask", why: "file edits need approval in this mode" };
  }
  if (sideEffect === "none") return { behavior: "allow", reason: "read-only" };
  return { behavior: "ask", why: `${toolName} needs approval in this mode` };
}

function decideBash(
  ctx: ModeContext,
  facts: CallFacts,
  partRules?: ReadonlyArray<PermissionRule | undefined>,
): ModeVerdict {
  const split = facts.bash;
  if (!split?.ok) {
    return { behavior: "ask", why: `the command could not be parsed (${split?.reason ?? "no command"})` };
  }
  if (split.commands.length === 0) return { behavior: "allow", reason: "read-only" };
  let usedMode = false;
  // After a `cd` the shell resolves relative paths elsewhere, so file commands are not judged by path.
  const changesDir = split.commands.some((cmd) => ["cd", "pushd", "popd"].includes(cmd.argv[0]));
  const blocked = split.commands.find((cmd, i) => {
    if (partRules?.[i] || isReadOnlyCommand(cmd)) return false;
    if (ctx.mode === "acceptEdits" && !changesDir && fileCommandInScope(ctx, cmd)) {
      usedMode = true;
      return false;
    }
    return true;
  });
  if (blocked === undefined) return { behavior: "allow", reason: usedMode ? "mode" : "read-only" };
  return { behavior: "ask", why: `no rule allows \`${blocked.text || "(redirection)"}\`` };
}

function fileCommandInScope(ctx: ModeContext, cmd: SimpleCommand): boolean {
  const paths = fileCommandPaths(cmd);
  if (paths === undefined) return false;
  const resolved = paths.map((p) => resolvePath(p, ctx.cwd));
  return firstOutsideScope(resolved, ctx.scopeDirs) === undefined;
}
