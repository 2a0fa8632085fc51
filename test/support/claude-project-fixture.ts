/**
 * A repository prepared for Claude Code, as a team would have it, for the tests that run one through
 * `query()` and through the Claude Agent SDK driving `goat`: `.claude/settings.json` with a deny
 * rule, an agent `.claude/agents/reviewer.md`, a namespaced command `.claude/commands/frontend/fix.md`
 * taking arguments with a `` !`…` `` line its `allowed-tools` approve, a skill `.claude/skills/pdf/`
 * with a helper file, `victim.txt` (which the deny rule protects), and the `review-kit` plugin
 * (`claude-plugin-fixture.ts`) in a folder beside it.
 */
import fs from "node:fs";
import path from "node:path";
import { PLUGIN, writeReviewPlugin } from "./claude-plugin-fixture.js";

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** What the project defines, by the names the session gives it. */
export const PROJECT = {
  denyRule: "Bash(rm:*)",
  agent: "reviewer",
  agentMarker: "REVIEWER-AGENT-PROMPT",
  command: "fix",
  namespacedCommand: "frontend:fix",
  commandMarker: "FIX-COMMAND-MARKER",
  skill: "pdf",
  skillMarker: "PDF-SKILL-BODY",
  helperText: "print('filled')",
} as const;

/** Writes the project into `root` and the plugin into `pluginRoot`; returns the helper file's path. */
export function writeClaudeProject(root: string, pluginRoot: string): { helper: string; pluginDir: string } {
  write(
    path.join(root, ".claude", "settings.json"),
    JSON.stringify({ permissions: { deny: [PROJECT.denyRule] } }),
  );
  write(
    path.join(root, ".claude", "agents", "reviewer.md"),
    `---\nname: reviewer\ndescription: Reviews a change\ntools: Read, Grep\n---\n${PROJECT.agentMarker}\n`,
  );
  write(
    path.join(root, ".claude", "commands", "frontend", "fix.md"),
    [
      "---",
      "description: Fix an issue",
      "argument-hint: <issue> [note]",
      "allowed-tools: Bash(echo:*)",
      "---",
      `${PROJECT.commandMarker} issue $1, all: $ARGUMENTS`,
      "Probe: !`echo probe-$1`",
      "",
    ].join("\n"),
  );
  const skill = path.join(root, ".claude", "skills", "pdf");
  write(
    path.join(skill, "SKILL.md"),
    `---\nname: pdf\ndescription: Fill PDF forms\n---\n${PROJECT.skillMarker}: run scripts/fill.py\n`,
  );
  const helper = path.join(skill, "scripts", "fill.py");
  write(helper, `${PROJECT.helperText}\n`);
  write(path.join(root, "victim.txt"), "keep me");
  return { helper, pluginDir: writeReviewPlugin(pluginRoot) };
}

export { PLUGIN };
