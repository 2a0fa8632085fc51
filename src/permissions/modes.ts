/**
 * What each permission mode says about a call that no rule decided: default asks for anything that
 * changes things, acceptEdits also lets file edits (and plain file commands) inside the allowed
 * directories through, plan refuses anything that changes things, bypassPermissions allows all, and
 * dontAsk turns every "ask" into a denial (the engine does that part). MCP tools ask in every mode but
 * bypassPermissions unless a rule allows them, whatever their annotations claim. A Bash line runs without asking
 * only when every part is covered by a rule or proven by the analysis (command-effects): a known
 * program, known flags, every path it reads or writes in scope as the kernel walks it (bash-paths: no
 * link out, no credentials, not an allowed directory itself), no earlier part that can change what a
 * later one touches (bash-line-order), git only in a repository whose config runs nothing. Anything
 * the analysis cannot prove asks.
 */
import fs from "node:fs";
import path from "node:path";
import { earlierPartProblem } from "./bash-line-order.js";
import { judgeBashPath, realDirectory } from "./bash-paths.js";
import type { SimpleCommand } from "./bash-split.js";
import { type CommandEffects, commandEffects, isReadOnlyCommand } from "./command-effects.js";
import { protectedInCopiedTree } from "./copied-tree.js";
import { gitRepositoryProblem } from "./git-commands.js";
import { resolveLikeKernel } from "./kernel-path.js";
import { firstOutsideScope, isInsideDir, type ResolvedPath } from "./path-scope.js";
import { protectedPathReason } from "./protected-paths.js";
import type { CallFacts } from "./rule-match.js";
import type { PermissionRule } from "./rule-parse.js";
import { isFileEditTool, isFileReadTool, isMcpTool, isSubagentTool } from "./tool-kinds.js";
import type { DecisionReason, PermissionMode, PermissionRequest } from "./types.js";

/** The mode's verdict: allow (with why), or ask with a reason in words and maybe the blocking path. */
export type ModeVerdict =
  | { behavior: "allow"; reason: DecisionReason }
  | { behavior: "ask"; why: string; blockedPath?: string; protectedPath?: string };

/** Where a mode looks: the real paths of the working directory and the additional directories. */
export interface ModeContext {
  mode: PermissionMode;
  cwd: string;
  scopeDirs: readonly string[];
  /** Shell start-up files the session's environment names (BASH_ENV, ENV): writing one always asks. */
  startupFiles?: readonly string[];
}

/** True when the call cannot change anything: reading tools, read-only shell lines, `none`/`read` tools. */
export function isReadOnlyCall(facts: CallFacts, sideEffect: PermissionRequest["sideEffect"]): boolean {
  if (facts.toolName === "Bash") {
    const split = facts.bash;
    if (!split?.ok || split.opaque || split.construct || split.changesDirectory) return false;
    return split.commands.every((cmd) => isReadOnlyCommand(cmd));
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
    const guarded = protectedWrite(facts.paths ?? [], ctx.startupFiles);
    if (guarded) return { behavior: "ask", why: guarded.why, protectedPath: guarded.path };
    if (ctx.mode === "acceptEdits") return { behavior: "allow", reason: "mode" };
    return { behavior: "ask", why: "file edits need approval in this mode" };
  }
  // An MCP server's annotations are its own claims: a hostile server's "read-only" tool may read
  // ~/.ssh or send data out, so only a rule or the user lets one run (annotations may still make
  // plan mode refuse a tool, or keep the scheduler from overlapping it, never let one through).
  if (isMcpTool(toolName)) {
    return { behavior: "ask", why: `${toolName} is an MCP server's tool, and no rule allows it` };
  }
  if (sideEffect === "none") return { behavior: "allow", reason: "read-only" };
  // A subagent asks for each of its own calls; starting one changes nothing by itself.
  if (isSubagentTool(toolName) && sideEffect !== "mutating")
    return { behavior: "allow", reason: "read-only" };
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
  if (split.opaque) return { behavior: "ask", why: `the command has ${split.opaque}` };
  let usedMode = false;
  const line = {
    commands: split.commands,
    concurrent: split.concurrent === true,
    ruled: (j: number) => !!partRules?.[j],
  };
  for (const [i, cmd] of split.commands.entries()) {
    if (partRules?.[i]) continue;
    const what = `\`${cmd.text || "(redirection)"}\``;
    if (split.construct)
      return { behavior: "ask", why: `no rule allows ${what} (inside ${split.construct})` };
    if (split.changesDirectory) {
      return { behavior: "ask", why: `no rule allows ${what}, and the line changes directory` };
    }
    const effects = commandEffects(cmd);
    if (typeof effects === "string") return { behavior: "ask", why: `no rule allows ${what}: ${effects}` };
    // Every part is judged before any runs: an earlier part may change what this one touches.
    const touchesPaths =
      effects.reads.length + effects.writes.length > 0 || effects.destination !== undefined;
    const base = partDirectory(ctx, cmd);
    const earlier = earlierPartProblem(line, i, touchesPaths, base, ctx.scopeDirs);
    if (earlier) return { behavior: "ask", why: `${what} ${earlier}` };
    const verdict = judgeEffects(ctx, cmd, effects);
    if (verdict === "write") usedMode = true;
    else if (verdict !== "read") return { ...verdict, why: `${what} ${verdict.why}` };
  }
  return { behavior: "allow", reason: usedMode ? "mode" : "read-only" };
}

/** The real directory a part runs in: the working directory, or the leading `cd`'s target. */
function partDirectory(ctx: ModeContext, cmd: SimpleCommand): string {
  return cmd.cdTarget === undefined ? ctx.cwd : realDirectory(cmd.cdTarget, ctx.cwd);
}

/**
 * Why `program` may not be the system's: a PATH entry the agent can write (empty or relative, or inside
 * the allowed directories, like `node_modules/.bin` under `npm run`) holds a file of that name, which
 * the shell could find before the real one.
 */
function searchPathProblem(program: string, base: string, scopeDirs: readonly string[]): string | undefined {
  for (const entry of (process.env.PATH ?? "").split(path.delimiter)) {
    const dir = path.resolve(base, entry);
    const writable = !path.isAbsolute(entry) || scopeDirs.some((d) => isInsideDir(dir, d));
    if (writable && fs.existsSync(path.join(dir, program))) {
      return `\`${program}\` may be the one in ${dir}, a PATH directory inside the allowed ones`;
    }
  }
  return undefined;
}

/** Whether a proven command's paths are in scope: "read" (only reads), "write" (acceptEdits allows), or ask. */
function judgeEffects(
  ctx: ModeContext,
  cmd: SimpleCommand,
  effects: CommandEffects,
): "read" | "write" | { behavior: "ask"; why: string; blockedPath?: string } {
  const base = partDirectory(ctx, cmd);
  const shadowed =
    cmd.argv[0] === undefined ? undefined : searchPathProblem(cmd.argv[0], base, ctx.scopeDirs);
  if (shadowed) return { behavior: "ask", why: shadowed };
  for (const p of effects.reads) {
    const refused = judgeBashPath(p, base, ctx.scopeDirs, "read");
    if (refused) return { behavior: "ask", ...refused };
  }
  const writes = [...effects.writes, ...destinationPaths(effects, base)];
  for (const p of writes) {
    const refused = judgeBashPath(p, base, ctx.scopeDirs, "write");
    if (refused) return { behavior: "ask", ...refused };
  }
  for (const p of writes) {
    const guarded = protectedWrite([resolveLikeKernel(p, base)], ctx.startupFiles);
    if (guarded) return { behavior: "ask", why: `writes ${guarded.path}: ${guarded.why}` };
  }
  const carried = protectedInCopiedTrees(effects, base);
  if (carried) return { behavior: "ask", why: carried };
  if (effects.git) {
    const problem = gitRepositoryProblem(base, ctx.scopeDirs);
    if (problem) return { behavior: "ask", why: `runs git, and ${problem}` };
  }
  if (writes.length === 0) return "read";
  if (ctx.mode !== "acceptEdits")
    return { behavior: "ask", why: "changes files, which needs approval in this mode" };
  return "write";
}

/** The first path a write would need approval for even in acceptEdits (protected-paths), with why. */
export function protectedWrite(
  paths: readonly ResolvedPath[],
  startupFiles: readonly string[] = [],
): { path: string; why: string } | undefined {
  for (const p of paths) {
    const reason = protectedPathReason(p, startupFiles);
    if (reason) return { path: p.real, why: `${p.real} is protected (${reason}), so writing it always asks` };
  }
  return undefined;
}

/** Where `cp`/`mv` sources land: inside the target when it is an existing directory, else the target. */
function destinationPaths(effects: CommandEffects, base: string): string[] {
  return landings(effects, base).map((l) => l.landing);
}

/** Each source of a `cp`/`mv` with where it lands. */
function landings(effects: CommandEffects, base: string): Array<{ source: string; landing: string }> {
  const d = effects.destination;
  if (d === undefined) return [];
  const target = resolveLikeKernel(d.target, base).real;
  let isDir = false;
  try {
    isDir = !d.exact && fs.statSync(target).isDirectory();
  } catch {
    isDir = false;
  }
  // A source keeps its last component as written (a link's own name; `x/..` lands in the target's parent).
  if (!isDir) return d.sources.map((source) => ({ source, landing: target }));
  return d.sources.map((source) => ({ source, landing: path.join(target, path.basename(source)) }));
}

/**
 * Why copying or moving a source tree would bring a protected name into the project (a `.claude/`
 * or `.envrc` deep inside it), or undefined. A source given as a link is copied as the link (`cp -r`,
 * `mv`), so only a real directory is walked.
 */
function protectedInCopiedTrees(effects: CommandEffects, base: string): string | undefined {
  for (const { source, landing } of landings(effects, base)) {
    const followed = /\/\.?$/.test(source);
    const dir = followed
      ? resolveLikeKernel(source, base).real
      : path.join(resolveLikeKernel(path.dirname(source), base).real, path.basename(source));
    const found = protectedInCopiedTree(dir, landing);
    if (found === "too-large") return `copies or moves ${dir}, a tree too large to check for protected names`;
    if (found) return `brings ${found.path} along: ${found.why}, so writing it always asks`;
  }
  return undefined;
}
