/**
 * The subagents, custom slash commands and skills of the `goat` command's folders (`.claude/agents/`,
 * `.claude/commands/`, `.claude/skills/`, Goat's `.goat/…`, and the user's `~/.claude/…` and `~/.goat/…`), as
 * `--setting-sources` chooses the levels (all when not given). A project's own files apply only
 * when the folder's configuration does (a trusted folder, or `GOAT_REQUIRE_TRUST=0`): a cloned
 * repository's command could run `!` lines and its agent could steer the model, so they wait for
 * trust as its settings do (`trust/project-config.ts` names them in the question).
 */
import { readAgentFiles, readSkillFiles, readSlashCommandFiles } from "../settings/index.js";
import type { CliQueryOptions } from "./sdk-options.js";

/**
 * Sets `options.agents` (below the `--agents` flag's, which win by name) and
 * `options.slashCommands` and `options.skillDefinitions` from the files; what cannot be used of a file goes to `warnings`.
 */
export function addDefinitionFiles(
  options: CliQueryOptions,
  ctx: {
    cwd: string;
    env: Record<string, string | undefined>;
    settingSources?: readonly string[];
    /** False when the folder is not trusted: only the user's files are read. */
    projectTrusted: boolean;
    warnings: string[];
  },
): void {
  const sources = (ctx.settingSources ?? ["user", "project"]).filter(
    (level) => level === "user" || (level === "project" && ctx.projectTrusted),
  );
  if (sources.length === 0) return;
  const warn = (message: string) => ctx.warnings.push(message);
  const agents = readAgentFiles(ctx.cwd, ctx.env, sources, warn);
  if (Object.keys(agents).length > 0) {
    const defined = Object.entries(agents).map(([name, { file: _, ...agent }]) => [name, agent]);
    options.agents = { ...Object.fromEntries(defined), ...options.agents };
  }
  const commands = readSlashCommandFiles(ctx.cwd, ctx.env, sources, warn);
  if (Object.keys(commands).length > 0) options.slashCommands = { ...commands, ...options.slashCommands };
  const skills = readSkillFiles(ctx.cwd, ctx.env, sources, warn);
  if (Object.keys(skills).length > 0) options.skillDefinitions = { ...skills, ...options.skillDefinitions };
}
