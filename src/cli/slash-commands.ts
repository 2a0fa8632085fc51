/**
 * Slash commands of the interactive mode: /help, /clear, /compact, /model, /cost, /mcp, /resume, /exit.
 * They act through the public `Query` handle and, for /resume, the public session helpers. The
 * project's and the user's own commands (`.claude/commands/`) are prompts: the session expands them.
 */
import type { Query } from "../index.js";
import { missingKeyMessage } from "./config.js";

/** What a slash command can reach. */
export interface SlashContext {
  query(): Query;
  cwd: string;
  /** The model in use (from the latest init), or the configured one. */
  model(): string | undefined;
  note(text: string): void;
  /** Lets the user pick one of `items`; undefined when cancelled. */
  pick(title: string, items: string[]): Promise<number | undefined>;
  /** Ends the current session and starts a new one (resuming `resume` when given). */
  restart(options: { resume?: string }): Promise<void>;
  exit(code: number): void;
  /** The project's and the user's own commands (`.claude/commands/`), listed by /help. */
  customCommands?: Record<string, { description: string; argumentHint?: string }>;
}

/**
 * Whether `line` starts with one of `commands` (`/fix 123`, or `/ns:name` for one in a subfolder):
 * it is then sent as a prompt, which the session expands into the command's text.
 */
export function isCustomCommand(
  line: string,
  commands: Record<string, { description: string; namespace?: string }> | undefined,
): boolean {
  if (!commands) return false;
  const name = /^\/([\w.:-]+)/.exec(line.trim())?.[1];
  if (name === undefined) return false;
  return (
    Object.hasOwn(commands, name) ||
    Object.entries(commands).some(([n, c]) => c.namespace !== undefined && `${c.namespace}:${n}` === name)
  );
}

/** The commands and their one-line help. */
export const SLASH_COMMANDS: ReadonlyArray<[string, string]> = [
  ["/help", "show this list"],
  ["/clear", "start a new session"],
  ["/compact [instructions]", "summarise the history to free context"],
  ["/model [name]", "show the model, or switch to another"],
  ["/cost", "tokens and dollars spent in this session"],
  ["/mcp", "MCP servers and their status"],
  ["/resume", "pick a recent session of this directory to resume"],
  ["/exit", "leave (Ctrl-D works too)"],
];

/** Runs a line starting with `/`. Unknown commands say so and list the known ones. */
export async function runSlashCommand(line: string, ctx: SlashContext): Promise<void> {
  const [command, ...rest] = line.trim().split(/\s+/);
  const arg = line.trim().slice(command.length).trim();
  switch (command) {
    case "/help":
      for (const [name, text] of SLASH_COMMANDS) ctx.note(`${name.padEnd(26)}${text}`);
      for (const [name, c] of Object.entries(ctx.customCommands ?? {})) {
        const usage = c.argumentHint ? `/${name} ${c.argumentHint}` : `/${name}`;
        ctx.note(`${usage.padEnd(26)}${c.description}`);
      }
      ctx.note("Ctrl-C interrupts the answer; Ctrl-C twice at an empty prompt exits.");
      ctx.note("Ctrl-O shows or hides thinking in full (--verbose shows it from the start).");
      return;
    case "/exit":
    case "/quit":
      ctx.exit(0);
      return;
    case "/clear":
      await ctx.restart({});
      ctx.note("(new session)");
      return;
    case "/compact":
      try {
        // Done is said once, by the compaction's own line in the conversation (with its token counts).
        await ctx.query().compact(arg || undefined);
      } catch (error) {
        ctx.note(`compact failed: ${(error as Error).message}`);
      }
      return;
    case "/model": {
      if (rest.length === 0) {
        ctx.note(`model: ${ctx.model() ?? "(default)"}`);
        return;
      }
      // A provider without its key would fail only at the next prompt: say so now and keep the model.
      const missing = missingKeyMessage(arg, process.env);
      if (missing) {
        ctx.note(`${missing} Still using ${ctx.model() ?? "the default model"}.`);
        return;
      }
      try {
        await ctx.query().setModel(arg);
        ctx.note(`model set to ${arg}`);
      } catch (error) {
        ctx.note(`cannot use model ${arg}: ${(error as Error).message}`);
      }
      return;
    }
    case "/cost": {
      const q = ctx.query();
      const u = q.totalUsage();
      ctx.note(
        `tokens: ${u.input_tokens} in, ${u.output_tokens} out, ${u.cache_read_input_tokens ?? 0} cache read, ${u.cache_creation_input_tokens ?? 0} cache write`,
      );
      ctx.note(`cost: $${q.totalCostUsd().toFixed(4)}`);
      return;
    }
    case "/mcp":
      await showMcpServers(ctx);
      return;
    case "/resume":
      await resume(ctx);
      return;
    default:
      ctx.note(`unknown command ${command}; try /help`);
  }
}

async function showMcpServers(ctx: SlashContext): Promise<void> {
  const servers = await ctx.query().mcpServerStatus();
  if (servers.length === 0) {
    ctx.note("no MCP servers (configure them in .mcp.json, settings mcpServers or --mcp-config)");
    return;
  }
  for (const s of servers) {
    const detail = s.status === "connected" ? `${s.tools?.length ?? 0} tools` : (s.error ?? "");
    ctx.note(`${s.name}: ${s.status}${detail ? ` — ${detail}` : ""}`);
  }
}

async function resume(ctx: SlashContext): Promise<void> {
  const { summarizeSessions, describeSession } = await import("./session-list.js");
  const current = ctx.query().sessionId;
  const sessions = (await summarizeSessions(ctx.cwd, process.env, 30)).filter((s) => s.sessionId !== current);
  if (sessions.length === 0) {
    ctx.note("no earlier sessions in this directory");
    return;
  }
  const n = await ctx.pick("Resume which session?", sessions.map(describeSession));
  if (n === undefined) {
    ctx.note("(not resumed)");
    return;
  }
  await ctx.restart({ resume: sessions[n].sessionId });
}
