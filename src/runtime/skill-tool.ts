/**
 * The Skill tool: progressive disclosure of Agent Skills, as Claude Code does it. Only each skill's
 * name and description go into the prompt (in this tool's description); the model calls
 * `Skill({ skill: name })` when one fits, and gets `SKILL.md`'s instructions with the skill's folder,
 * whose helper files it reads with the normal tools. So fifty installed skills cost their one-line
 * descriptions, not their bodies.
 *
 * Reading a skill changes nothing, so the tool is `sideEffect: "none"`: with no rule it runs without
 * asking (the project's skills are only read in a trusted folder), and `Skill(name)` rules deny, ask
 * or allow it by name as for any tool. A skill's `allowed-tools` become session allow rules when it
 * is used (`onUse`), for the rest of the session: they sit below deny and ask rules, hooks and plan
 * mode, exactly as an "always allow" answer does.
 */
import type { SkillDefinition } from "../settings/skill-files.js";
import { defineTool } from "../tools/define-tool.js";
import { jsonSchema } from "../tools/tool-schema.js";
import type { Tool } from "../tools/types.js";

/** Input of the Skill tool. */
export interface SkillInput {
  skill: string;
}

const inputSchema = jsonSchema<SkillInput>(
  {
    type: "object",
    properties: {
      skill: { type: "string", minLength: 1, description: 'The skill\'s name, e.g. "pdf"' },
    },
    required: ["skill"],
  },
  { removeAdditional: true },
);

/** The description: when to use the tool, then one line per skill (name and description only). */
function skillToolDescription(skills: Record<string, SkillDefinition>): string {
  const lines = Object.entries(skills).map(([name, s]) => `- ${name}: ${oneLine(s.description)}`);
  return `Use a skill: specialised instructions (and helper files) for a kind of task. When the task matches a skill's description below, call this tool with its name before doing the task yourself; the result gives the skill's instructions and its folder, whose files you can read with the normal tools. Only use skills listed here.

Available skills:
${lines.join("\n")}`;
}

/** Descriptions are the skill author's text: kept to one line so one cannot pose as another entry. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * The Skill tool offering `skills`; `onUse` is told of each skill the model uses (so its
 * `allowed-tools` can be allowed).
 */
export function createSkillTool(
  skills: Record<string, SkillDefinition>,
  onUse: (name: string, skill: SkillDefinition) => void,
): Tool<SkillInput> {
  return defineTool<SkillInput>({
    name: "Skill",
    description: skillToolDescription(skills),
    inputSchema,
    sideEffect: "none",
    execute: ({ skill: requested }) => {
      const name = requested.replace(/^\//, "").trim();
      const skill = Object.hasOwn(skills, name) ? skills[name] : undefined;
      if (!skill) {
        return {
          content: `Unknown skill "${name}". Available skills: ${Object.keys(skills).join(", ")}`,
          isError: true,
        };
      }
      onUse(name, skill);
      return {
        content: `Base directory for this skill: ${skill.dir}\n\n${skill.body}`,
      };
    },
  });
}

/**
 * The skills the session offers: `enabled` (`query()`'s `skills` option) filters them — `"all"` or
 * left out keeps every one, a list keeps those it names.
 */
export function enabledSkills(
  skills: Record<string, SkillDefinition> | undefined,
  enabled: readonly string[] | "all" | undefined,
): Record<string, SkillDefinition> {
  if (!skills) return {};
  if (enabled === undefined || enabled === "all") return skills;
  return Object.fromEntries(Object.entries(skills).filter(([name]) => enabled.includes(name)));
}
