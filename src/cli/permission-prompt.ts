/**
 * The interactive permission question: "allow Bash(rm -rf build)? [y]es / [n]o / [a]lways". "Always"
 * allows that tool with that exact input for the rest of the session, remembered here and passed on
 * as an `updatedPermissions` session rule.
 */
import type { QueryOptions } from "../agent/options.js";
import { toolCallLabel } from "./tool-summary.js";

type CanUseTool = NonNullable<QueryOptions["canUseTool"]>;

/** Asks one question and resolves with the typed answer ("" when the question was cancelled). */
export type Ask = (question: string, signal: AbortSignal) => Promise<string>;

/** Builds the `canUseTool` callback of the interactive mode. */
export function createPermissionPrompt(ask: Ask, cwd: string): CanUseTool {
  const always = new Set<string>();
  return async (toolName, input, { signal }) => {
    const label = toolCallLabel(toolName, input, cwd);
    const key = `${toolName}\u0000${JSON.stringify(input)}`;
    if (always.has(key)) return { behavior: "allow", updatedInput: input };
    for (;;) {
      if (signal.aborted) return { behavior: "deny", message: "The user interrupted the turn." };
      const answer = (await ask(`allow ${label}? [y]es / [n]o / [a]lways `, signal)).trim().toLowerCase();
      if (answer === "y" || answer === "yes") return { behavior: "allow", updatedInput: input };
      if (answer === "a" || answer === "always") {
        always.add(key);
        const ruleContent = typeof input.command === "string" ? input.command : undefined;
        return {
          behavior: "allow",
          updatedInput: input,
          updatedPermissions: [
            {
              type: "addRules",
              rules: [{ toolName, ...(ruleContent !== undefined ? { ruleContent } : {}) }],
              behavior: "allow",
              destination: "session",
            },
          ],
        };
      }
      if (answer === "n" || answer === "no" || answer === "" || signal.aborted) {
        return { behavior: "deny", message: "The user said no to this tool call." };
      }
    }
  };
}
