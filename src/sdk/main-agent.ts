/**
 * The `agent` option: the main conversation runs as one of the `agents`, taking its system prompt,
 * its tool list, its model (unless it says `inherit`) and its turn limit, as Claude Code's `--agent`
 * does.
 */

import { builtinTools } from "../tools/builtin.js";
import type { QueryOptions } from "./options.js";
import { InvalidOptionError } from "./options-check.js";

/** The options with the named agent applied; the same object when `agent` is not given. */
export function withMainAgent(options: QueryOptions): QueryOptions {
  if (options.agent === undefined) return options;
  const def = options.agents?.[options.agent];
  if (!def) {
    const names = Object.keys(options.agents ?? {});
    throw new InvalidOptionError(
      "agent",
      `Option "agent" names "${options.agent}", which is not in "agents"${names.length > 0 ? ` (defined: ${names.join(", ")})` : " (none are defined)"}.`,
    );
  }
  const out: QueryOptions = { ...options, systemPrompt: def.prompt };
  if (def.model && def.model !== "inherit") out.model = def.model;
  if (def.maxTurns !== undefined) out.maxTurns = def.maxTurns;
  if (def.tools) {
    // The agent's names pick from the built-ins and from the tools the options give as objects.
    const own = Array.isArray(options.tools) ? options.tools.filter((t) => typeof t !== "string") : [];
    const allowed = new Set(def.tools);
    const unknown = def.tools.filter(
      (n) =>
        !Object.hasOwn(builtinTools, n) &&
        n !== "Task" &&
        !n.startsWith("mcp__") &&
        !own.some((t) => t.name === n),
    );
    if (unknown.length > 0) {
      throw new InvalidOptionError(
        "agent",
        `Agent "${options.agent}" lists tools that do not exist: ${unknown.join(", ")}. Built-in tools: ${Object.keys(builtinTools).join(", ")}, Task.`,
      );
    }
    // MCP tools are not in this list: they are offered as they connect, and disallowedTools removes them.
    out.tools = [
      ...def.tools.filter((n) => Object.hasOwn(builtinTools, n) || n === "Task"),
      ...own.filter((t) => allowed.has(t.name)),
    ];
  }
  const disallowed = [...(options.disallowedTools ?? []), ...(def.disallowedTools ?? [])];
  // Defining agents turns the Task tool on; an agent whose list leaves it out does not get it.
  if (def.tools && !def.tools.includes("Task")) disallowed.push("Task");
  if (disallowed.length > 0) out.disallowedTools = disallowed;
  return out;
}
