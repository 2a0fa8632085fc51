/**
 * The interactive permission question, one line answered by one key:
 *   `Allow Bash(npm test)?  y yes · n no · a always: Bash(npm test:*) · esc cancel`
 * "Always" applies the engine's suggestion for this call (a Bash prefix rule as Claude Code offers, the
 * acceptEdits mode for an edit, a directory outside the scope…), shown in the question, for the rest of
 * the session. Esc or Ctrl-C cancel the whole turn: the run is interrupted, not told "no", so the model
 * is not called again.
 */

import type { PermissionUpdate, QueryOptions } from "../index.js";
import { formatRule } from "../permissions/index.js";
import type { Style } from "./style.js";
import type { Choice } from "./terminal/user-input.js";
import { safe } from "./tool-output.js";
import { toolCallLabel } from "./tool-summary.js";

type CanUseTool = NonNullable<QueryOptions["canUseTool"]>;

/** Asks a one-key question; resolves with the key, "escape" or "ctrl-c". */
export type Choose = (question: string, keys: string[], signal: AbortSignal) => Promise<Choice>;

/** Builds the `canUseTool` callback of the interactive mode; `cancelTurn` interrupts the run. */
export function createPermissionPrompt(
  choose: Choose,
  cwd: string,
  style: Style,
  cancelTurn: () => void,
): CanUseTool {
  return async (toolName, input, { signal, suggestions }) => {
    const label = safe(toolCallLabel(toolName, input, cwd));
    const always = describeUpdates(suggestions ?? []);
    const question =
      `${style.yellow("?")} Allow ${style.bold(label)}?  ` +
      `${style.bold("y")} yes · ${style.bold("n")} no · ${style.bold("a")} always${always ? `: ${always}` : ""} · ${style.bold("esc")} cancel `;
    const answer = await choose(question, ["y", "n", "a"], signal);
    if (answer === "y") return { behavior: "allow", updatedInput: input };
    if (answer === "a") {
      const updates: PermissionUpdate[] =
        suggestions && suggestions.length > 0
          ? suggestions
          : [{ type: "addRules", rules: [{ toolName }], behavior: "allow", destination: "session" }];
      return { behavior: "allow", updatedInput: input, updatedPermissions: updates };
    }
    if (answer === "n") return { behavior: "deny", message: "The user said no to this tool call." };
    // Esc, Ctrl-C, or the run was interrupted meanwhile: end the turn rather than answer "no".
    cancelTurn();
    return { behavior: "deny", message: "The user cancelled the turn.", interrupt: true };
  };
}

/** What "always" will add, in the words of settings files: `Bash(npm test:*)`, `acceptEdits mode`. */
export function describeUpdates(updates: PermissionUpdate[]): string {
  const parts: string[] = [];
  for (const u of updates) {
    if (u.type === "addRules") parts.push(...u.rules.map((r) => safe(formatRule(r))));
    else if (u.type === "setMode") parts.push(`${u.mode} mode`);
    else if (u.type === "addDirectories") parts.push(...u.directories.map((d) => `dir ${safe(d)}`));
  }
  return parts.join(", ");
}
