/**
 * The slash commands that show the session's state, as Claude Code's do: /context (how full the
 * context window is), /permissions (the rules in force and where each comes from), /status (model,
 * mode, session, sandbox, MCP servers), /agents (the subagents it can start) and /export (the
 * conversation as a markdown file). They read only the public `Query` handle and session helpers.
 */
import { writeFile } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { resultText } from "../render/tool-output.js";
import type { SlashContext } from "./slash-context.js";

/** /context: the window's use by category, and where compaction starts. */
export async function showContext(ctx: SlashContext): Promise<void> {
  const usage = await ctx.query().getContextUsage();
  ctx.note(
    `context: ${thousands(usage.totalTokens)} of ${thousands(usage.maxTokens)} tokens (${usage.percentage.toFixed(1)}%) · ${usage.model}`,
  );
  for (const c of usage.categories) {
    if (c.tokens === 0) continue;
    const share = usage.maxTokens > 0 ? ` (${((c.tokens / usage.maxTokens) * 100).toFixed(1)}%)` : "";
    ctx.note(`  ${c.name.padEnd(22)}${thousands(c.tokens).padStart(9)}${share}`);
  }
  if (usage.autoCompactThreshold !== undefined)
    ctx.note(
      `compaction ${usage.isAutoCompactEnabled ? "starts" : "would start"} at ${thousands(usage.autoCompactThreshold)} tokens`,
    );
}

/** /permissions: every rule with its behaviour and source, and the directories in scope. */
export async function showPermissions(ctx: SlashContext): Promise<void> {
  const listing = await ctx.query().listPermissionRules();
  if (listing.rules.length === 0)
    ctx.note("no permission rules: every call the mode does not allow is asked");
  for (const behavior of ["deny", "ask", "allow"] as const) {
    const rules = listing.rules.filter((r) => r.behavior === behavior);
    if (rules.length === 0) continue;
    ctx.note(`${behavior}:`);
    for (const r of rules)
      ctx.note(
        `  ${r.rule.padEnd(36)} ${r.source}${r.notInEffect ? " (not in effect: managed rules only)" : ""}`,
      );
  }
  ctx.note(
    `directories: ${[listing.originalCwd, ...listing.workspaceDirectories.map((d) => d.path)].join(", ")}`,
  );
  ctx.note(
    "rules are added in settings files (permissions.allow/deny/ask) or by answering a with a question",
  );
}

/** /status: what this session runs with. */
export async function showStatus(ctx: SlashContext, mode: string): Promise<void> {
  const q = ctx.query();
  const [init, servers] = await Promise.all([
    q.initializationResult().catch(() => undefined),
    q.mcpServerStatus().catch(() => []),
  ]);
  ctx.note(`model: ${ctx.model() ?? "(default)"}`);
  ctx.note(`permission mode: ${mode}`);
  ctx.note(`session: ${q.sessionId}`);
  ctx.note(`directory: ${ctx.cwd}`);
  if (init?.account?.apiKeySource) ctx.note(`credentials: ${init.account.apiKeySource}`);
  const connected = servers.filter((s) => s.status === "connected").length;
  ctx.note(`MCP servers: ${servers.length === 0 ? "none" : `${connected} of ${servers.length} connected`}`);
  ctx.note(`turns: ${q.turnCount()} · cost: $${q.totalCostUsd().toFixed(4)}`);
}

/** /agents: the subagents the model can start with the Task tool. */
export async function showAgents(ctx: SlashContext): Promise<void> {
  const agents = await ctx.query().supportedAgents();
  if (agents.length === 0) {
    ctx.note("no subagents (define them in .claude/agents/*.md or the agents option)");
    return;
  }
  for (const a of agents)
    ctx.note(`${a.name.padEnd(24)}${a.description}${a.model ? ` (model: ${a.model})` : ""}`);
}

/** /export [file]: the conversation so far as markdown, in `file` or a dated file in the directory. */
export async function exportConversation(ctx: SlashContext, file: string): Promise<void> {
  const { getSessionMessages } = await import("../../session/index.js");
  const sessionId = ctx.query().sessionId;
  const messages = await getSessionMessages(sessionId).catch(() => []);
  if (messages.length === 0) {
    ctx.note("nothing to export yet");
    return;
  }
  const name = file || `goat-conversation-${new Date().toISOString().replace(/[:.]/g, "-").slice(0, 19)}.md`;
  const path = isAbsolute(name) ? name : resolve(ctx.cwd, name);
  const parts: string[] = [`# Conversation ${sessionId}\n`];
  for (const m of messages) {
    const text = textOf(m.content);
    if (text === "") continue;
    parts.push(`## ${m.role === "user" ? "User" : "Assistant"}\n\n${text}\n`);
  }
  // Never over an existing file: the user names a new one.
  try {
    await writeFile(path, parts.join("\n"), { flag: "wx", mode: 0o600 });
    ctx.note(`exported ${messages.length} messages to ${path}`);
  } catch (error) {
    ctx.note(`cannot export to ${path}: ${(error as Error).message}`);
  }
}

/** A message's text and tool calls, as markdown. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b: { type?: string; text?: string; name?: string; input?: unknown; content?: unknown }) => {
      if (b.type === "text") return b.text ?? "";
      if (b.type === "tool_use") return `**${b.name}** \`${JSON.stringify(b.input)}\``;
      if (b.type === "tool_result") {
        const out = resultText(b.content);
        return `\`\`\`\n${out.slice(0, 2000)}${out.length > 2000 ? "\n…" : ""}\n\`\`\``;
      }
      return "";
    })
    .filter((t) => t !== "")
    .join("\n\n");
}

function thousands(n: number): string {
  return n.toLocaleString("en-US");
}
