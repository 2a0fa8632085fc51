/**
 * What a session offers a prompt: the slash commands it may start with (the built-ins, then the
 * custom ones) and the subagents the Task tool can start (the same lists `system/init` names).
 */
import type { SlashCommandDefinition } from "../settings/slash-command-files.js";
import { type AgentDefinition, GENERAL_PURPOSE_AGENT } from "./subagents.js";

/** A subagent the Task tool offers (the SDK's `AgentInfo`). */
export interface AgentInfo {
  name: string;
  description: string;
  /** `inherit` or a model id or alias; absent means the parent's model. */
  model?: string;
}

/** A slash command (the SDK's `SlashCommand`): a custom command a prompt may start with. */
export interface SlashCommand {
  /** Its name, without the leading `/`. */
  name: string;
  description: string;
  /** The arguments it takes (`[issue-number]`); empty when it says none. */
  argumentHint: string;
}

/** The built-in commands a `query()` prompt may start with (`runtime/builtin-commands.ts` runs them). */
export const BUILTIN_COMMANDS: readonly SlashCommand[] = [
  {
    name: "compact",
    description: "Summarise the conversation to free context",
    argumentHint: "[instructions]",
  },
];

/** The session's commands as the SDK lists them: the built-ins, then the custom ones by name. */
export function offeredCommands(
  commands: Record<string, SlashCommandDefinition> | undefined,
): SlashCommand[] {
  const custom = Object.entries(commands ?? {})
    // A built-in's name is the built-in's: a prompt `/compact` compacts, whatever a file defines.
    .filter(([name]) => !BUILTIN_COMMANDS.some((b) => b.name === name))
    .map(([name, c]) => ({ name, description: c.description, argumentHint: c.argumentHint ?? "" }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return [...BUILTIN_COMMANDS, ...custom];
}

/** The agents the Task tool offers: the defined ones, else the general-purpose one; none without Task. */
export function offeredAgents(
  taskOn: boolean,
  agents: Record<string, AgentDefinition> | undefined,
): AgentInfo[] {
  if (!taskOn) return [];
  const defined =
    agents && Object.keys(agents).length > 0 ? agents : { "general-purpose": GENERAL_PURPOSE_AGENT };
  return Object.entries(defined).map(([name, def]) =>
    def.model !== undefined
      ? { name, description: def.description, model: def.model }
      : { name, description: def.description },
  );
}
