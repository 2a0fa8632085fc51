/**
 * `goat-agent/agents`: what an agent runs as — subagent definitions and the Task tool that starts
 * them (`createTaskTool`, `runSubagent`, the built-in general-purpose agent), and the system prompts
 * (the coding-agent prompt `query()` uses by default, and the minimal one). `query()` wires these
 * from its `agents`, `agent` and `systemPrompt` options; import them to build a session around
 * `agentLoop` yourself, or to show the same agent list `system/init` reports; and the slash
 * command list `system/init` reports (`offeredCommands`: the built-ins, then the custom ones); and
 * the project's definitions and Claude Code plugins applied to the options (`withProjectDescription`
 * for a description read with `readProjectDescription` of `goat-agent/settings`; `withPlugins`, which
 * `query()` applies to its `plugins` option).
 */

export { withPlugins } from "./plugin-options.js";
export { withProjectDescription } from "./project-options.js";
export { BUILTIN_COMMANDS, offeredCommands, type SlashCommand } from "./session-offers.js";
export {
  type AgentDefinition,
  createTaskTool,
  GENERAL_PURPOSE_AGENT,
  runSubagent,
  type SubagentParent,
} from "./subagents.js";
export {
  codingAgentPrompt,
  findInstructionFiles,
  type GitInfo,
  type InstructionFile,
  MINIMAL_SYSTEM_PROMPT,
} from "./system-prompt.js";
