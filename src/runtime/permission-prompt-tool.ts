/**
 * `permissionPromptToolName`: permission questions answered by a tool of the session (an MCP
 * server's, as in Claude Code) instead of a `canUseTool` callback. The tool is called with
 * `{ tool_name, input, tool_use_id }` and answers with text holding JSON: `{ "behavior": "allow",
 * "updatedInput"?: {…} }` or `{ "behavior": "deny", "message": "…" }`. A missing tool, a failed call
 * or an answer of another shape denies the call, saying why: a question nobody could answer is never
 * taken as a yes.
 */
import type { CanUseTool, PermissionResult } from "../permissions/types.js";
import type { Tool, ToolContext, ToolResult } from "../tools/types.js";

/** What calling the prompt tool needs from the session. */
export interface PromptToolSession {
  /** The session's tools as they are now (MCP servers connect and change while it runs). */
  tools: () => readonly Tool[];
  /** The context a tool call gets, for the call being decided. */
  context: (signal: AbortSignal, toolUseId: string) => ToolContext;
}

/** A `canUseTool` that asks the tool named `name`. */
export function permissionPromptToolCallback(name: string, session: PromptToolSession): CanUseTool {
  return async (toolName, input, options) => {
    const tool = session.tools().find((t) => t.name === name);
    if (!tool) {
      return deny(
        `The permission prompt tool ${name} is not available (is its MCP server connected?), so ${toolName} was not allowed.`,
      );
    }
    let result: ToolResult;
    try {
      result = await tool.execute(
        { tool_name: toolName, input, tool_use_id: options.toolUseID },
        session.context(options.signal, options.toolUseID),
      );
    } catch (error) {
      if (options.signal.aborted) throw error;
      return deny(`The permission prompt tool ${name} failed: ${(error as Error).message ?? String(error)}`);
    }
    const text = textOf(result);
    if (result.isError) return deny(`The permission prompt tool ${name} answered with an error: ${text}`);
    return decisionOf(text, input) ?? deny(`The permission prompt tool ${name} gave no decision: ${text}`);
  };
}

/** The decision in the tool's answer, or undefined when it holds none. */
function decisionOf(text: string, input: Record<string, unknown>): PermissionResult | undefined {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof answer !== "object" || answer === null) return undefined;
  const { behavior, updatedInput, message } = answer as Record<string, unknown>;
  if (behavior === "allow") {
    const isObject =
      typeof updatedInput === "object" && updatedInput !== null && !Array.isArray(updatedInput);
    return { behavior: "allow", updatedInput: isObject ? (updatedInput as Record<string, unknown>) : input };
  }
  if (behavior === "deny") {
    return { behavior: "deny", message: typeof message === "string" && message ? message : "Denied." };
  }
  return undefined;
}

function textOf(result: ToolResult): string {
  if (typeof result.content === "string") return result.content;
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

function deny(message: string): PermissionResult {
  return { behavior: "deny", message };
}
