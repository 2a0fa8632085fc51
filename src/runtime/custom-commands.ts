/**
 * Custom slash commands at the prompt: a user message that starts with `/name args`, `name` being
 * one of the session's `slashCommands` (files of `.claude/commands/`, read by
 * `settings/slash-command-files.ts`, or given as the option), becomes the command's prompt before the
 * model sees it, as in Claude Code:
 *
 * - `$ARGUMENTS` is everything after the name, `$1`…`$9` its words (quotes group words);
 * - `@path` is replaced by the file's text when the file is inside the session's directories and no
 *   rule denies reading it; any other path (outside, missing, denied) stays as written, with a warning;
 * - `` !`command` `` is replaced by the command's output when the session's gate lets the Bash call
 *   run (PreToolUse hooks, then permission rules, the mode, and the host's answer to an ask, as for
 *   the model's own calls; the command's `allowed-tools` rules approve the lines they name, after
 *   deny and ask rules), otherwise by a note that it did not run.
 *
 * The file's text is the project's, so it is checked as the model's own calls are: nothing in it runs
 * or is read that the session would not let the model run or read.
 */
import { randomUUID } from "node:crypto";
import { readFileSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { AgentMessage } from "../loop/events.js";
import type { BeforeToolCallDecision, ToolCallInfo } from "../loop/loop-config.js";
import { createPermissionEngine } from "../permissions/engine.js";
import type { SlashCommandDefinition } from "../settings/slash-command-files.js";
import { runTool } from "../tools/define-tool.js";
import type { Tool, ToolContext, ToolResult } from "../tools/types.js";

/** What expanding a command needs from its session. */
export interface CommandExpansionContext {
  cwd: string;
  /** The directories file tools may touch (real paths). */
  directories(): readonly string[];
  /** The session's Bash tool, when it has one. */
  bashTool(): Tool | undefined;
  /**
   * The session's gate for a tool call: PreToolUse hooks and permissions, as for the model's calls,
   * with the command's `allowed-tools` rules approving what they name (deny and ask rules first).
   */
  gate(info: ToolCallInfo, allowedTools: readonly string[]): Promise<BeforeToolCallDecision>;
  /** Whether the rules let Read open `path` (a deny or ask rule naming it says no). */
  mayRead(path: string, signal: AbortSignal): Promise<boolean>;
  /** A tool context for running the Bash tool. */
  toolContext(toolUseId: string, signal: AbortSignal, confinement: ToolContext["confinement"]): ToolContext;
  warn(message: string): void;
}

/** Largest file an `@path` reference inlines (256 KiB); a larger one stays as written, with a warning. */
const MAX_INLINE_BYTES = 256 * 1024;

/** The command a prompt names (`/fix 123` → `fix`), with its arguments; undefined when it names none. */
export function findCommand(
  text: string,
  commands: Record<string, SlashCommandDefinition>,
): { name: string; command: SlashCommandDefinition; args: string } | undefined {
  const match = /^\/([\w.:-]+)(?:[ \t]+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  const [, name, args = ""] = match;
  const command =
    (Object.hasOwn(commands, name) ? commands[name] : undefined) ??
    Object.entries(commands).find(
      ([n, c]) => c.namespace !== undefined && `${c.namespace}:${n}` === name,
    )?.[1];
  return command ? { name, command, args: args.trim() } : undefined;
}

/**
 * The input with a leading `/command` expanded; the same array when the first user message names no
 * command (the cost of a session without commands is one test of the first character).
 */
export async function expandCommandInput(
  input: AgentMessage[],
  commands: Record<string, SlashCommandDefinition>,
  ctx: CommandExpansionContext,
  signal: AbortSignal,
): Promise<AgentMessage[]> {
  const first = input[0];
  if (first?.role !== "user") return input;
  const text = promptText(first.content);
  if (text === undefined || !text.trimStart().startsWith("/")) return input;
  const found = findCommand(text, commands);
  if (!found) return input;
  const expanded = await expandCommand(found.command, found.args, ctx, signal);
  return [{ ...first, content: expanded }, ...input.slice(1)];
}

/**
 * The model the command a prompt names asks for (its `model` front matter), for that turn only, as
 * `resolve` gives it; undefined when the prompt names no command, the command names no model, or
 * `resolve` refuses it (said through `warn`: the turn keeps the session's model).
 */
export function commandTurnModel(
  input: AgentMessage[],
  commands: Record<string, SlashCommandDefinition>,
  resolve: (model: string) => string,
  warn: (message: string) => void,
): string | undefined {
  const first = input[0];
  const text = first?.role === "user" ? promptText(first.content) : undefined;
  if (text === undefined || !text.trimStart().startsWith("/")) return undefined;
  const found = findCommand(text, commands);
  if (found?.command.model === undefined) return undefined;
  try {
    return resolve(found.command.model);
  } catch (error) {
    warn(
      `/${found.name}: model ${found.command.model} cannot be used (${(error as Error).message}); the turn keeps the session's model`,
    );
    return undefined;
  }
}

/** A user message's text when it is only text (a string, or a single text block). */
function promptText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (Array.isArray(content) && content.length === 1 && content[0]?.type === "text") return content[0].text;
  return undefined;
}

/** The command's prompt with its arguments, files and command output in place. */
export async function expandCommand(
  command: SlashCommandDefinition,
  args: string,
  ctx: CommandExpansionContext,
  signal: AbortSignal,
): Promise<string> {
  const words = splitArguments(args);
  // Arguments first, so `!`git show $1`` runs on the argument (and is checked as the final line).
  const withArgs = command.prompt
    .replace(/\$ARGUMENTS\b/g, () => args)
    .replace(/\$([1-9])(?!\d)/g, (_, n: string) => words[Number(n) - 1] ?? "");
  // One pass over the command's own text: a command's output or a file's text is never scanned again,
  // so a file cannot smuggle in a `!` line, nor a command's output an `@` reference.
  return replaceAsync(
    withArgs,
    /!`([^`\n]+)`|(^|[\s(])@([^\s`'"()<>]+)/gm,
    async (match, line: string | undefined, lead: string | undefined, path: string | undefined) => {
      if (line !== undefined) return runCommandLine(line, command.allowedTools ?? [], ctx, signal);
      const text = await inlineFile(path ?? "", command, ctx, signal);
      return text === undefined ? match : `${lead ?? ""}${text}`;
    },
  );
}

/** Runs one `` !`command` `` through the gate and the Bash tool; its output, or a note saying why not. */
async function runCommandLine(
  line: string,
  allowedTools: readonly string[],
  ctx: CommandExpansionContext,
  signal: AbortSignal,
): Promise<string> {
  const bash = ctx.bashTool();
  if (!bash) return `[\`${line}\` was not run: this session has no Bash tool]`;
  const id = `slash-command-${randomUUID()}`;
  const input = { command: line, description: "Context for a slash command" };
  const info: ToolCallInfo = {
    call: { type: "tool_use", id, name: bash.name, input },
    tool: bash,
    input,
    signal,
  };
  const decision = await ctx.gate(info, allowedTools);
  if (decision.action === "deny") {
    return `[\`${line}\` was not run: ${decision.message}]`;
  }
  const result = await runTool(bash, decision.input, ctx.toolContext(id, signal, decision.confine));
  const output = resultText(result).trimEnd();
  return result.isError ? `[\`${line}\` failed: ${output}]` : output;
}

/** The text of `@path` when it may be read; undefined (with a warning) to keep the reference as written. */
async function inlineFile(
  path: string,
  command: SlashCommandDefinition,
  ctx: CommandExpansionContext,
  signal: AbortSignal,
): Promise<string | undefined> {
  const where = command.file ?? "a slash command";
  const absolute = isAbsolute(path) ? path : resolve(ctx.cwd, path);
  let real: string;
  try {
    real = realpathSync(absolute);
    if (!statSync(real).isFile()) return undefined; // a folder or a device: left as written, quietly
  } catch {
    ctx.warn(`${where}: @${path} names no file; left as written`);
    return undefined;
  }
  if (!ctx.directories().some((dir) => isWithin(real, dir))) {
    ctx.warn(`${where}: @${path} is outside the session's directories; not read, left as written`);
    return undefined;
  }
  if (!(await ctx.mayRead(real, signal))) {
    ctx.warn(`${where}: @${path} may not be read (a permission rule); left as written`);
    return undefined;
  }
  if (statSync(real).size > MAX_INLINE_BYTES) {
    ctx.warn(`${where}: @${path} is larger than ${MAX_INLINE_BYTES / 1024} KiB; not inlined`);
    return undefined;
  }
  return readFileSync(real, "utf8");
}

function isWithin(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** The words of the arguments: split on spaces, a quoted part kept as one word (without its quotes). */
export function splitArguments(args: string): string[] {
  const words: string[] = [];
  for (const m of args.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) words.push(m[1] ?? m[2] ?? m[3]);
  return words;
}

function resultText(result: ToolResult): string {
  if (typeof result.content === "string") return result.content;
  return result.content.map((b) => (b.type === "text" ? b.text : "")).join("");
}

async function replaceAsync(
  text: string,
  pattern: RegExp,
  replace: (match: string, ...groups: Array<string | undefined>) => Promise<string>,
): Promise<string> {
  const parts: Array<string | (() => Promise<string>)> = [];
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    parts.push(text.slice(last, m.index));
    parts.push(() => replace(m[0], ...m.slice(1)));
    last = (m.index ?? 0) + m[0].length;
  }
  parts.push(text.slice(last));
  // One after another: each `!` line is a Bash call the user may be asked about in turn.
  let out = "";
  for (const part of parts) out += typeof part === "string" ? part : await part();
  return out;
}

/**
 * Whether `rules` (a slash command's `allowed-tools`) allow this Bash call on their own, every part
 * of the line covered as an allow rule must (`Bash(git status:*)` covers `git status`). A bare `Bash`
 * approves nothing, and a rule that cannot be parsed names nothing.
 */
export async function allowedToolsApprove(
  rules: readonly string[],
  input: Record<string, unknown>,
  cwd: string,
  signal: AbortSignal,
): Promise<boolean> {
  const named = rules.filter((rule) => rule.includes("("));
  if (named.length === 0) return false;
  try {
    const scoped = createPermissionEngine({ cwd, allowedTools: named });
    const decision = await scoped.decide({
      toolName: "Bash",
      input,
      sideEffect: "mutating",
      toolUseID: "allowed-tools",
      signal,
    });
    return decision.behavior === "allow" && decision.reason === "rule";
  } catch {
    return false;
  }
}
