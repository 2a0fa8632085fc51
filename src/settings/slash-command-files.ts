/**
 * Custom slash commands defined in files, as Claude Code reads them: `.claude/commands/**\/*.md` in
 * the project and `~/.claude/commands/` (`$CLAUDE_CONFIG_DIR/commands`) for the user, with Goat's
 * `.goat/commands/` and `~/.goat/commands/` beside them (`markdown-folders.ts`). A file's name is
 * the command's (`fix.md` is `/fix`); a subfolder shows in its description, as Claude Code shows it
 * (`frontend/test.md` is `/test`, "(project:frontend)"), and `/frontend:test` names it too. The front
 * matter gives `description` (else the body's first line), `argument-hint`, `allowed-tools` and
 * `model`; the body is the prompt, expanded when the command is used (`runtime/custom-commands.ts`).
 *
 * Read leniently: a front matter line that cannot be read is one warning naming the file and line,
 * and the rest of the file still defines the command.
 */
import { basename } from "node:path";
import { isGoatModelName } from "./claude-files.js";
import { type FrontMatterValue, parseFrontMatter } from "./front-matter.js";
import { definitionFolders, readMarkdownFiles } from "./markdown-folders.js";

/** A custom slash command: what `query()`'s `slashCommands` option takes, by name (no leading `/`). */
export interface SlashCommandDefinition {
  /** What the command does, shown in `/help` and `supportedCommands()`. */
  description: string;
  /** The arguments it takes, shown after its name (`[issue-number]`). */
  argumentHint?: string;
  /**
   * Rules naming the `` !`command` `` lines it may run without asking (`Bash(git status:*)`): the
   * session's deny and ask rules, hooks and plan mode still come first. A bare `Bash` approves nothing.
   */
  allowedTools?: string[];
  /** The model its turn runs on (the session's model again after it). */
  model?: string;
  /**
   * The prompt: `$ARGUMENTS` (everything after the name), `$1`…`$9` (the words), `@path` (the file's
   * text, when inside the session's directories), `` !`command` `` (its output, when permitted).
   */
  prompt: string;
  /** The subfolder path it was found in (`frontend`), which also names it as `frontend:name`. */
  namespace?: string;
  /** The file it was read from. */
  file?: string;
}

/**
 * The commands of the files for the levels in `sources` (`user`, `project`), by name; a project's
 * command replaces a user's of the same name. Never throws: problems go to `warn`.
 */
export function readSlashCommandFiles(
  cwd: string,
  env: Record<string, string | undefined>,
  sources: readonly string[],
  warn: (message: string) => void,
): Record<string, SlashCommandDefinition> {
  const commands: Record<string, SlashCommandDefinition> = {};
  for (const folder of definitionFolders("commands", cwd, env, sources)) {
    for (const { file, subfolders, text } of readMarkdownFiles(folder.path, true, warn)) {
      const name = commandName(file, warn);
      if (name) commands[name] = commandFromFile(file, text, folder.level, subfolders.join(":"), warn);
    }
  }
  return commands;
}

/**
 * The commands of a plugin's `commands/` folder, named as Claude Code names them:
 * `<plugin>:<name>` (`<plugin>:<subfolder>:<name>` below a subfolder), described "(plugin:<plugin>)".
 */
export function readPluginCommands(
  root: string,
  plugin: string,
  warn: (message: string) => void,
): Record<string, SlashCommandDefinition> {
  const commands: Record<string, SlashCommandDefinition> = {};
  for (const { file, subfolders, text } of readMarkdownFiles(root, true, warn)) {
    const name = commandName(file, warn);
    if (name)
      commands[[plugin, ...subfolders, name].join(":")] = commandFromFile(
        file,
        text,
        `plugin:${plugin}`,
        "",
        warn,
      );
  }
  return commands;
}

/** The command a file defines (`fix.md` is `fix`), or undefined with a warning when it cannot be a name. */
function commandName(file: string, warn: (message: string) => void): string | undefined {
  const name = basename(file, ".md");
  if (/^[\w.-]+$/.test(name)) return name;
  warn(`${file}: "${name}" cannot be a command name (letters, digits, ".", "_" and "-"); left out`);
  return undefined;
}

function commandFromFile(
  file: string,
  text: string,
  level: string,
  namespace: string,
  warn: (message: string) => void,
): SlashCommandDefinition {
  const { fields, raw, body, problems } = parseFrontMatter(text);
  for (const p of problems) warn(`${file}:${p.line}: ${p.message}; that line is ignored`);
  const prompt = body.replace(/^\s*\n/, "");
  const firstLine = prompt.split("\n").find((line) => line.trim() !== "") ?? "";
  const described =
    asText(fields.description) ||
    firstLine
      .replace(/^#+\s*/, "")
      .trim()
      .slice(0, 100);
  const scope = namespace ? `${level}:${namespace}` : level;
  const command: SlashCommandDefinition = { description: `${described} (${scope})`.trim(), prompt, file };
  if (namespace) command.namespace = namespace;
  // As written: `[issue-number]` is YAML for a list, but Claude Code shows the brackets.
  const hint = raw["argument-hint"]?.replace(/^(["'])(.*)\1$/, "$2") ?? "";
  if (hint) command.argumentHint = hint;
  const allowed = fields["allowed-tools"];
  if (allowed !== undefined) {
    const rules = Array.isArray(allowed) ? allowed : splitRules(allowed);
    if (rules.length > 0) command.allowedTools = rules;
  }
  const model = asText(fields.model);
  if (model && model !== "inherit") {
    if (isGoatModelName(model)) command.model = model;
    else warn(`${file}: model ${JSON.stringify(model)} is not a model name Goat knows; ignored`);
  }
  return command;
}

/** `Bash(git add:*), Bash(git status:*)`: split on the commas between rules, not inside their parentheses. */
export function splitRules(text: string): string[] {
  const rules: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "(") depth++;
    else if (text[i] === ")") depth = Math.max(0, depth - 1);
    else if (text[i] === "," && depth === 0) {
      rules.push(text.slice(start, i));
      start = i + 1;
    }
  }
  rules.push(text.slice(start));
  return rules.map((rule) => rule.trim().replace(/^(["'])(.*)\1$/, "$2")).filter((rule) => rule !== "");
}

function asText(value: FrontMatterValue | undefined): string {
  if (value === undefined) return "";
  return (Array.isArray(value) ? value.join(", ") : value).trim();
}
