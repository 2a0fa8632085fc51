/**
 * The system prompt: the user's own text, or Goat's built-in prompt for a coding agent (what it is,
 * how to use its tools, to keep answers short) with the environment it runs in.
 */
import type { SystemPromptOption } from "./options.js";

/** The prompt used when none is given, as in the Claude Agent SDK: minimal, not the coding preset. */
export const MINIMAL_SYSTEM_PROMPT =
  "You are a helpful agent built on Goat. Use the tools you are given when they help.";

/** Goat's coding-agent prompt (the `goat` preset). */
export function codingAgentPrompt(env: {
  cwd: string;
  tools: string[];
  date?: Date;
  platform?: string;
}): string {
  const date = (env.date ?? new Date()).toISOString().slice(0, 10);
  return [
    "You are Goat, an agent that helps with software engineering tasks in the user's project.",
    "",
    "# How to work",
    "- Use the tools to look before you act: read files before editing them, search with Glob and Grep rather than guessing paths.",
    "- File tools take absolute paths. Edit a file with Edit (exact old_string) rather than rewriting it with Write.",
    "- Run commands with Bash; prefer non-interactive commands; long-running ones can run in the background.",
    "- When several independent reads or searches are needed, request them together in one answer: they run in parallel.",
    "- Keep answers short and direct. Say what you changed and anything the user must do next.",
    "",
    "# Environment",
    `- Working directory: ${env.cwd}`,
    `- Platform: ${env.platform ?? process.platform}`,
    `- Date: ${date}`,
    `- Tools: ${env.tools.join(", ") || "(none)"}`,
  ].join("\n");
}

/** Resolves the `systemPrompt` option to the text sent to the model. */
export function resolveSystemPrompt(
  option: SystemPromptOption | undefined,
  env: { cwd: string; tools: string[] },
): string {
  if (option === undefined) return MINIMAL_SYSTEM_PROMPT;
  if (typeof option === "string") return option;
  const base = codingAgentPrompt(env);
  return option.append ? `${base}\n\n${option.append}` : base;
}
