/**
 * A Claude Code plugin on disk, as the tests of plugins use it: `review-kit` (version 1.2.0) with a
 * command `/review-kit:review` taking arguments, an agent `checker`, a skill `style` with a helper
 * file, a PreToolUse hook on its MCP tools that appends to `hook.log` in the plugin's folder, and an
 * MCP server `fx` (a real stdio server with an `echo` tool), both reached through
 * `${CLAUDE_PLUGIN_ROOT}`.
 */
import fs from "node:fs";
import path from "node:path";
import { writeStdioServer } from "../mcp/helpers.js";

/** What a plugin's files write for the plugin's folder. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the literal text of a plugin's files
const ROOT = "${CLAUDE_PLUGIN_ROOT}";

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** What the fixture defines, by the names the session gives it. */
export const PLUGIN = {
  name: "review-kit",
  version: "1.2.0",
  command: "review-kit:review",
  agent: "review-kit:checker",
  skill: "review-kit:style",
  server: "plugin_review-kit_fx",
  echoTool: "mcp__plugin_review-kit_fx__echo",
  commandMarker: "REVIEW-COMMAND-MARKER",
  skillMarker: "STYLE-SKILL-BODY",
  agentMarker: "CHECKER-AGENT-PROMPT",
} as const;

/** Writes the plugin into `root` (made if missing) and returns `root`. */
export function writeReviewPlugin(root: string): string {
  write(
    path.join(root, ".claude-plugin", "plugin.json"),
    JSON.stringify({ name: PLUGIN.name, version: PLUGIN.version, description: "Review helpers" }),
  );
  write(
    path.join(root, "commands", "review.md"),
    `---\ndescription: Review a file\nargument-hint: <file>\n---\n${PLUGIN.commandMarker}: review $ARGUMENTS (first: $1)\n`,
  );
  write(
    path.join(root, "agents", "checker.md"),
    `---\nname: checker\ndescription: Checks a change\ntools: Read\n---\n${PLUGIN.agentMarker}\n`,
  );
  write(
    path.join(root, "skills", "style", "SKILL.md"),
    `---\nname: style\ndescription: The house style\n---\n${PLUGIN.skillMarker}: see rules.md beside this file.\n`,
  );
  write(path.join(root, "skills", "style", "rules.md"), "Tabs, never spaces.\n");
  write(
    path.join(root, "hooks", "hooks.json"),
    JSON.stringify({
      hooks: {
        PreToolUse: [
          {
            matcher: "mcp__.*",
            hooks: [{ type: "command", command: `echo hooked >> ${ROOT}/hook.log` }],
          },
        ],
      },
    }),
  );
  writeStdioServer(root);
  write(
    path.join(root, ".mcp.json"),
    JSON.stringify({
      mcpServers: { fx: { command: process.execPath, args: [`${ROOT}/server.mjs`] } },
    }),
  );
  return root;
}
