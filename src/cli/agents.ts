/**
 * The `--agents` flag: Claude Code's JSON object of subagent definitions,
 * `{"reviewer": {"description": "…", "prompt": "…", "tools": ["Read"], "model": "inherit"}}`,
 * checked by hand (no schema library to load at start-up) into `query()`'s `agents` option.
 */
import type { AgentDefinition } from "../index.js";
import { UsageError } from "./args.js";

/** Parses the `--agents` JSON. Throws `UsageError` saying which agent and field is wrong. */
export function parseAgentsFlag(text: string): Record<string, AgentDefinition> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--agents must be a JSON object of agent definitions: ${(error as Error).message}`);
  }
  if (!isObject(json)) {
    throw new UsageError('--agents must be a JSON object like {"name": {"description": "…", "prompt": "…"}}');
  }
  const agents: Record<string, AgentDefinition> = {};
  for (const [name, raw] of Object.entries(json)) {
    const where = `--agents: agent "${name}"`;
    if (!isObject(raw)) throw new UsageError(`${where} must be an object with description and prompt`);
    const { description, prompt, tools, model, maxTurns } = raw;
    if (typeof description !== "string" || description.trim() === "") {
      throw new UsageError(`${where} needs a "description" string (when the model should use it)`);
    }
    if (typeof prompt !== "string" || prompt.trim() === "") {
      throw new UsageError(`${where} needs a "prompt" string (its system prompt)`);
    }
    const agent: AgentDefinition = { description, prompt };
    if (tools !== undefined) {
      if (!Array.isArray(tools) || tools.some((t) => typeof t !== "string")) {
        throw new UsageError(`${where}: "tools" must be an array of tool names`);
      }
      agent.tools = tools as string[];
    }
    if (model !== undefined) {
      if (typeof model !== "string" || model === "")
        throw new UsageError(`${where}: "model" must be a string`);
      agent.model = model;
    }
    if (maxTurns !== undefined) {
      if (typeof maxTurns !== "number" || !Number.isInteger(maxTurns) || maxTurns < 1) {
        throw new UsageError(`${where}: "maxTurns" must be a whole number ≥ 1`);
      }
      agent.maxTurns = maxTurns;
    }
    agents[name] = agent;
  }
  return agents;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
