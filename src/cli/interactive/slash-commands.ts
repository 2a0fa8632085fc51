/**
 * Slash commands of the interactive mode, offered by the `/` menu (`terminal/command-menu.ts`):
 * /help, /clear, /compact, /context, /cost, /model, /permissions, /status, /agents, /init, /export,
 * /mcp, /resume, /exit. They act through the public `Query` handle and, for /resume and /export, the
 * public session helpers. The project's and the user's own commands (`.claude/commands/`) are prompts:
 * the session expands them.
 */
import { missingKeyMessage } from "../config.js";
import type { MenuCommand } from "../terminal/command-menu.js";
import type { SlashContext } from "./slash-context.js";
import {
  exportConversation,
  showAgents,
  showContext,
  showPermissions,
  showStatus,
} from "./slash-info-commands.js";

export type { SlashContext } from "./slash-context.js";

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

/** The commands, their arguments and their one-line help, in the order /help and the menu show them. */
export const SLASH_COMMANDS: readonly MenuCommand[] = [
  { name: "/help", description: "show the commands and keys" },
  { name: "/clear", description: "start a new session" },
  { name: "/compact", argumentHint: "[instructions]", description: "summarise the history to free context" },
  { name: "/context", description: "how full the context window is, by part" },
  { name: "/cost", description: "tokens and dollars spent in this session" },
  { name: "/model", argumentHint: "[name]", description: "show the model and pick another" },
  { name: "/permissions", description: "the permission rules in force and their sources" },
  { name: "/status", description: "model, mode, session, credentials and MCP servers" },
  { name: "/agents", description: "the subagents the model can start" },
  { name: "/init", description: "have the model write a CLAUDE.md describing this project" },
  { name: "/export", argumentHint: "[file]", description: "save the conversation as markdown" },
  { name: "/mcp", description: "MCP servers and their status" },
  { name: "/resume", description: "pick a recent session of this directory to resume" },
  { name: "/exit", description: "leave (Ctrl-D works too)" },
];

/** The words /init sends: what a CLAUDE.md should hold, for the model to find out and write. */
const INIT_PROMPT =
  "Please look through this repository and write a CLAUDE.md file at its root for future sessions of a " +
  "coding agent working here. Keep it short and specific to this project: the commands to build, lint " +
  "and test (and to run a single test), the architecture a newcomer needs to know that is not obvious " +
  "from one file, and the conventions the code follows. Fold in what matters from an existing README, " +
  ".cursorrules or .github/copilot-instructions.md. If a CLAUDE.md exists, improve it rather than " +
  "starting over. Do not list every file, and do not invent practices the code does not show.";

/** Runs a line starting with `/`. Unknown commands say so and list the known ones. */
export async function runSlashCommand(line: string, ctx: SlashContext): Promise<void> {
  const [command, ...rest] = line.trim().split(/\s+/);
  const arg = line.trim().slice(command.length).trim();
  switch (command) {
    case "/help":
      for (const c of SLASH_COMMANDS)
        ctx.note(`${(c.argumentHint ? `${c.name} ${c.argumentHint}` : c.name).padEnd(26)}${c.description}`);
      for (const [name, c] of Object.entries(ctx.customCommands ?? {})) {
        const usage = c.argumentHint ? `/${name} ${c.argumentHint}` : `/${name}`;
        ctx.note(`${usage.padEnd(26)}${c.description}`);
      }
      ctx.note("Ctrl-C interrupts the answer; Ctrl-C twice at an empty prompt exits.");
      ctx.note("Ctrl-O shows or hides thinking in full (--verbose shows it from the start).");
      ctx.note("Shift+Tab cycles the permission modes; / opens this list as a menu (Tab completes).");
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
        await pickModel(ctx);
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
    case "/context":
      await showContext(ctx);
      return;
    case "/permissions":
    case "/allowed-tools":
      await showPermissions(ctx);
      return;
    case "/status":
      await showStatus(ctx, ctx.mode());
      return;
    case "/agents":
      await showAgents(ctx);
      return;
    case "/export":
      await exportConversation(ctx, arg);
      return;
    case "/init":
      ctx.send(INIT_PROMPT);
      return;
    case "/resume":
      await resume(ctx);
      return;
    default:
      ctx.note(`unknown command ${command}; try /help`);
  }
}

/** /model alone: the model in use, and a picker of the catalog's models whose keys are set. */
async function pickModel(ctx: SlashContext): Promise<void> {
  const current = ctx.model();
  ctx.note(`model: ${current ?? "(default)"}`);
  const models = (await ctx.query().supportedModels()).filter(
    (m) => missingKeyMessage(m.value, process.env) === undefined,
  );
  if (models.length === 0) return;
  const n = await ctx.pick(
    "Switch to which model?",
    models.map((m) => `${m.value}${m.value === current ? " (in use)" : ""} · ${m.description}`),
  );
  if (n === undefined || models[n].value === current) return;
  await runSlashCommand(`/model ${models[n].value}`, ctx);
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
  const { summarizeSessions, describeSession } = await import("../sessions/session-list.js");
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
