/**
 * A tool registry: the set of tools one session (or agent) offers the model, by name. Plain data
 * made by `createToolRegistry`; there is no global registry, so two sessions never share tools.
 */

import type { ToolDefinition } from "../llm/types.js";
import { InvalidToolError } from "./errors.js";
import type { Tool } from "./types.js";

/** Allow and disallow lists, by exact tool name. */
export interface ToolFilter {
  /**
   * When given, only these tools remain. An entry with a rule in parentheses (`Bash(npm:*)`) keeps
   * its tool: which calls are allowed is the permissions layer's job.
   */
  allowedTools?: readonly string[];
  /**
   * These tools are removed. An entry with a rule in parentheses (`Bash(rm:*)`) does not remove
   * the tool; the permissions layer denies the matching calls.
   */
  disallowedTools?: readonly string[];
}

/** The tools a session offers, by name, in registration order. */
export interface ToolRegistry {
  /** Adds a tool; throws if a tool with the same name is already registered. */
  register(tool: Tool): void;
  /** The tool with this name, or `undefined`. */
  get(name: string): Tool | undefined;
  has(name: string): boolean;
  /** All tools, in registration order. */
  list(): Tool[];
  /** What the model is sent: name, description and input JSON Schema of each tool. */
  definitions(): ToolDefinition[];
  /** A new registry holding only the tools the lists let through (this one is unchanged). */
  filter(lists: ToolFilter): ToolRegistry;
}

/**
 * Creates a registry, optionally with tools already in it.
 *
 * @example
 * const registry = createToolRegistry([readTool, writeTool, editTool]).filter({ disallowedTools: ["Write"] });
 * registry.definitions(); // [{ name: "Read", … }, { name: "Edit", … }]
 */
export function createToolRegistry(tools: readonly Tool[] = []): ToolRegistry {
  const byName = new Map<string, Tool>();
  const registry: ToolRegistry = {
    register(tool) {
      if (byName.has(tool.name)) {
        throw new InvalidToolError(
          `A tool named "${tool.name}" is already registered; tool names must be unique.`,
          tool.name,
        );
      }
      byName.set(tool.name, tool);
    },
    get: (name) => byName.get(name),
    has: (name) => byName.has(name),
    list: () => [...byName.values()],
    definitions: () =>
      [...byName.values()].map((tool) => ({
        name: tool.name,
        description: tool.description,
        input_schema: tool.jsonSchema,
      })),
    filter(lists) {
      const allowed = lists.allowedTools ? new Set(lists.allowedTools.map(toolNameOfRule)) : undefined;
      const denied = new Set((lists.disallowedTools ?? []).filter((rule) => !rule.includes("(")));
      return createToolRegistry(
        [...byName.values()].filter(
          (tool) => (allowed === undefined || allowed.has(tool.name)) && !denied.has(tool.name),
        ),
      );
    },
  };
  for (const tool of tools) registry.register(tool);
  return registry;
}

/** The tool a permission rule is about: `Bash(npm:*)` → `Bash`, `Read` → `Read`. */
function toolNameOfRule(rule: string): string {
  const paren = rule.indexOf("(");
  return (paren === -1 ? rule : rule.slice(0, paren)).trim();
}
