/**
 * The system prompt: the user's own text, or Goat's built-in prompt for a coding agent (what it is,
 * how to use its tools, to keep answers short) with the environment it runs in and the project's
 * own instructions (`AGENTS.md`, and `CLAUDE.md` for users coming from Claude Code).
 */
import { readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { memoryHeading, memorySection } from "../settings/memory-files.js";

/** A system prompt: plain text, or the built-in coding-agent prompt with text appended. */
export type SystemPromptOption = string | { type: "preset"; preset: "goat" | "claude_code"; append?: string };

/** The prompt used when none is given, as in the Claude Agent SDK: minimal, not the coding preset. */
export const MINIMAL_SYSTEM_PROMPT =
  "You are a helpful agent built on Goat. Use the tools you are given when they help.";

/** The instruction files read from the cwd and its parents, in the order they are shown per folder. */
const INSTRUCTION_FILES: readonly string[] = ["AGENTS.md", "CLAUDE.md"];

/** Largest instruction file read whole; longer ones are cut so one huge file cannot flood the prompt. */
const MAX_INSTRUCTION_CHARS = 40_000;

/** Whether `cwd` is inside a git work tree, and the checked-out branch (or short commit when detached). */
export interface GitInfo {
  isRepo: boolean;
  branch?: string;
}

/**
 * Finds the git repository of `cwd` by reading `.git/HEAD` directly (no `git` process: start-up
 * speed). A `.git` file (worktrees, submodules) is followed to its `gitdir`.
 */
function readGitInfo(cwd: string): GitInfo {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const dotGit = join(dir, ".git");
    let gitDir: string | undefined;
    try {
      if (statSync(dotGit).isDirectory()) gitDir = dotGit;
      else {
        const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"));
        if (m) gitDir = resolve(dir, m[1].trim());
      }
    } catch {
      // No .git here: look in the parent.
    }
    if (gitDir) {
      try {
        const head = readFileSync(join(gitDir, "HEAD"), "utf8").trim();
        const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(head);
        return { isRepo: true, branch: ref ? ref[1] : head.slice(0, 12) || undefined };
      } catch {
        return { isRepo: true };
      }
    }
    if (dirname(dir) === dir) return { isRepo: false };
  }
}

/** One project instruction file found for a cwd. */
export interface InstructionFile {
  path: string;
  content: string;
  /** The memory file whose `@path` import brought this one in. */
  importedBy?: string;
}

/** `AGENTS.md` and `CLAUDE.md` from the filesystem root down to `cwd` (nearest last), empty ones skipped. */
export function findInstructionFiles(cwd: string): InstructionFile[] {
  const dirs: string[] = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  const found: InstructionFile[] = [];
  for (const dir of dirs) {
    for (const name of INSTRUCTION_FILES) {
      const path = join(dir, name);
      let content: string;
      try {
        content = readFileSync(path, "utf8");
      } catch {
        continue;
      }
      if (content.trim() === "") continue;
      if (content.length > MAX_INSTRUCTION_CHARS) {
        content = `${content.slice(0, MAX_INSTRUCTION_CHARS)}\n[… cut: the file has ${content.length} characters]`;
      }
      found.push({ path, content: content.trimEnd() });
    }
  }
  return found;
}

/** Goat's coding-agent prompt (the `goat` preset). */
export function codingAgentPrompt(env: {
  cwd: string;
  tools: string[];
  date?: Date;
  platform?: string;
  /** Defaults to reading `.git/HEAD` above `cwd`. */
  git?: GitInfo;
  /** Defaults to the `AGENTS.md` / `CLAUDE.md` files of `cwd` and its parents. */
  instructions?: InstructionFile[];
}): string {
  const date = (env.date ?? new Date()).toISOString().slice(0, 10);
  const git = env.git ?? readGitInfo(env.cwd);
  const instructions = env.instructions ?? findInstructionFiles(env.cwd);
  const lines = [
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
    `- Git repository: ${git.isRepo ? `yes${git.branch ? ` (branch ${git.branch})` : ""}` : "no"}`,
    `- Tools: ${env.tools.join(", ") || "(none)"}`,
  ];
  if (instructions.length > 0) {
    lines.push(
      "",
      "# Project instructions",
      "The user's instructions for this project follow, from the outermost folder to the nearest; nearer ones take precedence.",
    );
    for (const file of instructions) lines.push("", memoryHeading(file), "", file.content);
  }
  return lines.join("\n");
}

/**
 * Resolves the `systemPrompt` option to the text sent to the model. `memory`, when the session reads
 * memory files (see memory-files.ts), replaces the preset's own search and follows any other prompt.
 */
export function resolveSystemPrompt(
  option: SystemPromptOption | undefined,
  env: { cwd: string; tools: string[] },
  memory?: InstructionFile[],
): string {
  if (option === undefined || typeof option === "string") {
    const text = option ?? MINIMAL_SYSTEM_PROMPT;
    const section = memory && memorySection(memory);
    return section ? `${text}\n\n${section}` : text;
  }
  const base = codingAgentPrompt(memory ? { ...env, instructions: memory } : env);
  return option.append ? `${base}\n\n${option.append}` : base;
}
