/**
 * Agent Skills, as Claude Code reads them: a folder per skill holding `SKILL.md`, in the project's
 * `.claude/skills/<name>/` and the user's `~/.claude/skills/<name>/` (`$CLAUDE_CONFIG_DIR/skills`),
 * with Goat's `.goat/skills/` and `~/.goat/skills/` beside them (`markdown-folders.ts`). `SKILL.md`'s
 * front matter gives `name` (else the folder's name), `description` (what it does and when to use
 * it) and `allowed-tools`; its body is the instructions the model reads when it uses the skill.
 * Other files in the folder (scripts, references) are the skill's own: the model reads them with the
 * normal tools, from the folder path it is given.
 *
 * Read leniently: a front matter line that cannot be read is one warning naming the file and line;
 * a skill without a description is a warning and left out (the model could not tell when to use it).
 */
import { type Dirent, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type FrontMatterValue, parseFrontMatter } from "./front-matter.js";
import { definitionFolders } from "./markdown-folders.js";
import { splitRules } from "./slash-command-files.js";

/** A skill read from its `SKILL.md`. */
export interface SkillDefinition {
  /** What the skill does and when to use it: all the model sees of it until it uses it. */
  description: string;
  /** The instructions: `SKILL.md` after its front matter. */
  body: string;
  /** The skill's folder, where its helper files are. */
  dir: string;
  /** Permission rules the skill's tools need (`allowed-tools`), allowed once the skill is used. */
  allowedTools?: string[];
  /** `user`, `project` or `plugin` for a skill read from a file. */
  level?: "user" | "project" | "plugin";
}

/** Most skill folders read from one root: a stray huge tree costs a bounded walk. */
const MAX_SKILLS = 500;

/**
 * The skills of the levels in `sources` (`user`, `project`), by name; a project's skill replaces a
 * user's of the same name. Never throws: problems go to `warn`.
 */
export function readSkillFiles(
  cwd: string,
  env: Record<string, string | undefined>,
  sources: readonly string[],
  warn: (message: string) => void,
): Record<string, SkillDefinition> {
  const skills: Record<string, SkillDefinition> = {};
  for (const folder of definitionFolders("skills", cwd, env, sources)) {
    Object.assign(skills, readSkillFolder(folder.path, folder.level, warn));
  }
  return skills;
}

/**
 * The skills of one folder of skill folders (`.claude/skills/`, a plugin's `skills/`), by name;
 * `prefix` goes before each name (a plugin's `<plugin>:`). Never throws: problems go to `warn`.
 */
export function readSkillFolder(
  root: string,
  level: SkillDefinition["level"],
  warn: (message: string) => void,
  prefix = "",
): Record<string, SkillDefinition> {
  const skills: Record<string, SkillDefinition> = {};
  for (const dir of skillDirs(root)) {
    const file = join(dir.path, "SKILL.md");
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      // A folder without SKILL.md is not a skill (a shared scripts folder, say): nothing to say.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
        warn(`${file}: cannot be read (${(error as Error).message}); left out`);
      }
      continue;
    }
    const parsed = skillFromFile(file, dir.name, dir.path, text, level, warn);
    if (parsed) skills[prefix + parsed.name] = parsed.skill;
  }
  return skills;
}

/** The subfolders of `root`, in name order; none when it is missing. */
function skillDirs(root: string): Array<{ name: string; path: string }> {
  let entries: Dirent[];
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => e.isDirectory() || e.isSymbolicLink())
    .map((e) => e.name)
    .sort()
    .slice(0, MAX_SKILLS)
    .map((name) => ({ name, path: join(root, name) }));
}

function skillFromFile(
  file: string,
  folderName: string,
  dir: string,
  text: string,
  level: SkillDefinition["level"],
  warn: (message: string) => void,
): { name: string; skill: SkillDefinition } | undefined {
  const { fields, body, problems } = parseFrontMatter(text);
  for (const p of problems) warn(`${file}:${p.line}: ${p.message}; that line is ignored`);
  const name = asText(fields.name) || folderName;
  // Shown in the Skill tool's description and matched by `Skill(name)` rules: a plain word.
  if (!/^[\w.:-]+$/.test(name)) {
    warn(
      `${file}: skill name ${JSON.stringify(name)} is not letters, digits, ".", ":", "_" and "-"; left out`,
    );
    return undefined;
  }
  const description = asText(fields.description);
  if (description === "") {
    warn(`${file}: no "description" in its front matter (what the skill does, when to use it); left out`);
    return undefined;
  }
  const skill: SkillDefinition = { description, body: body.trim(), dir, level };
  const allowed = fields["allowed-tools"];
  if (allowed !== undefined) {
    const rules = (Array.isArray(allowed) ? allowed : toolList(allowed)).map((r) => r.trim()).filter(Boolean);
    if (rules.length > 0) skill.allowedTools = rules;
  }
  return { name, skill };
}

/** `Read, Grep` or the Agent Skills spec's space-separated `Read Grep`; rules with `(` split on commas only. */
function toolList(text: string): string[] {
  if (text.includes(",") || text.includes("(")) return splitRules(text);
  return text.split(/\s+/);
}

function asText(value: FrontMatterValue | undefined): string {
  if (value === undefined) return "";
  return (Array.isArray(value) ? value.join(", ") : value).trim();
}
