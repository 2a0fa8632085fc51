/**
 * Subagents defined in files, as Claude Code reads them: `.claude/agents/*.md` in the project and
 * `~/.claude/agents/*.md` (`$CLAUDE_CONFIG_DIR/agents`) for the user, and Goat's `.goat/agents/` and
 * `~/.goat/agents/` beside them (`markdown-folders.ts`). Each file's front matter gives `name`,
 * `description`, `tools` (a comma list; all the parent's tools when left out) and `model`
 * (`sonnet`, `opus`, `haiku`, `inherit` or a full id); its body is the agent's system prompt.
 *
 * Read leniently: a front matter line that cannot be read is one warning naming the file and line
 * (the other fields still apply); a file without a description, or without a prompt, is a warning
 * and left out, since the model could not tell when to use it.
 */
import { basename } from "node:path";
import { isGoatModelName } from "./claude-files.js";
import { type FrontMatterValue, parseFrontMatter, splitList } from "./front-matter.js";
import { definitionFolders, readMarkdownFiles } from "./markdown-folders.js";

/** A subagent read from a file (the fields of `query()`'s `AgentDefinition` it sets). */
export interface FileAgentDefinition {
  description: string;
  prompt: string;
  tools?: string[];
  model?: string;
  /** The file it was read from. */
  file: string;
}

/**
 * The agents of the files for the levels in `sources` (`user`, `project`), by name; a project's
 * agent replaces a user's of the same name. Never throws: problems go to `warn`.
 */
export function readAgentFiles(
  cwd: string,
  env: Record<string, string | undefined>,
  sources: readonly string[],
  warn: (message: string) => void,
): Record<string, FileAgentDefinition> {
  const agents: Record<string, FileAgentDefinition> = {};
  for (const folder of definitionFolders("agents", cwd, env, sources)) {
    for (const { file, text } of readMarkdownFiles(folder.path, false, warn)) {
      const parsed = agentFromFile(file, text, warn);
      if (parsed) agents[parsed.name] = parsed.agent;
    }
  }
  return agents;
}

/** One agent file, or undefined (with a warning) when it cannot define an agent (a plugin's are read one by one too). */
export function agentFromFile(
  file: string,
  text: string,
  warn: (message: string) => void,
): { name: string; agent: FileAgentDefinition } | undefined {
  const { fields, body, problems } = parseFrontMatter(text);
  for (const p of problems) warn(`${file}:${p.line}: ${p.message}; that line is ignored`);
  const name = asText(fields.name) || basename(file, ".md");
  // Shown in the Task tool's description, the trust question and stderr: a plain word, nothing more.
  if (!/^[\w.-]+$/.test(name)) {
    warn(`${file}: agent name ${JSON.stringify(name)} is not letters, digits, ".", "_" and "-"; left out`);
    return undefined;
  }
  const description = asText(fields.description);
  if (description === "") {
    warn(`${file}: no "description" in its front matter (when to use the agent); left out`);
    return undefined;
  }
  const prompt = body.trim();
  if (prompt === "") {
    warn(`${file}: no system prompt (the text after the front matter); left out`);
    return undefined;
  }
  const agent: FileAgentDefinition = { description, prompt, file };
  if (fields.tools !== undefined) {
    const tools = Array.isArray(fields.tools) ? fields.tools : splitList(fields.tools);
    // `tools:` left empty means all of them, as when the key is absent.
    if (tools.length > 0) agent.tools = tools;
  }
  const model = asText(fields.model);
  if (model !== "") {
    if (model === "inherit" || isGoatModelName(model)) agent.model = model;
    else
      warn(
        `${file}: model ${JSON.stringify(model)} is not a model name Goat knows; the agent inherits the session's`,
      );
  }
  return { name, agent };
}

function asText(value: FrontMatterValue | undefined): string {
  if (value === undefined) return "";
  return (Array.isArray(value) ? value.join(", ") : value).trim();
}
