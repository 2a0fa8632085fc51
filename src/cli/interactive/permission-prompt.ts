/**
 * The interactive permission question, one line answered by one key:
 *   `Allow Bash(npm test)?  y yes · n no · a always: Bash(npm test:*) · esc cancel`
 * The call is shown whole and exactly (`call-view.ts`): a short plain call inside the question, any
 * other (several fields, long, several lines, escaped characters) in full in the lines above it, or,
 * past a screen's worth of rows, its first and last rows with `v` to print it all into the scrollback.
 * An Edit or Write is shown as the diff it would make to its file (`change-view.ts`). `t` says no
 * and tells the model what to do instead, in a line the user types.
 * "Always" applies the engine's suggestion for this call (a Bash prefix rule as Claude Code offers, the
 * acceptEdits mode for an edit, a directory outside the scope…), shown in the question, for the rest of
 * the session. Esc or Ctrl-C cancel the whole turn: the run is interrupted, not told "no", so the model
 * is not called again.
 */

import type { PermissionUpdate, QueryOptions } from "../../index.js";
import { formatRule } from "../../permissions/index.js";
import type { Style } from "../style.js";
import { terminalSafe } from "../terminal/safe-text.js";
import { textWidth } from "../terminal/text-width.js";
import type { Block } from "../terminal/transcript.js";
import type { Choice } from "../terminal/user-input.js";
import { callView } from "./call-view.js";
import { changeView } from "./change-view.js";

type CanUseTool = NonNullable<QueryOptions["canUseTool"]>;

/** Asks a one-key question; resolves with the key, "escape" or "ctrl-c". */
type Choose = (question: string, keys: string[], signal: AbortSignal) => Promise<Choice>;

/**
 * Where the question is asked: `choose` asks, `ask` reads a line of text, `show` prints above it, and
 * the screen's size.
 */
export interface QuestionArea {
  choose: Choose;
  ask(question: string, signal: AbortSignal): Promise<string | undefined>;
  show(block: Block): void;
  columns(): number;
  rows(): number;
}

/** An "always" longer than this is shown with the call instead of inside the question line. */
const ALWAYS_INLINE_MAX = 60;

/**
 * Builds the `canUseTool` callback of the interactive mode; `cancelTurn` interrupts the run, `cwd`
 * resolves the relative paths of edits.
 */
export function createPermissionPrompt(
  area: QuestionArea,
  style: Style,
  cancelTurn: () => void,
  cwd: string,
): CanUseTool {
  // Stand-ins for escaped characters in reverse video: literal text cannot look like one.
  const mark = (s: string) => (style.enabled ? `\x1b[7m${s}\x1b[27m` : s);
  return async (toolName, input, { signal, suggestions }) => {
    // Without a suggestion from the engine, "always" allows the tool itself, and says so.
    const updates: PermissionUpdate[] =
      suggestions && suggestions.length > 0
        ? suggestions
        : [{ type: "addRules", rules: [{ toolName }], behavior: "allow", destination: "session" }];
    const always = describeUpdates(updates, mark);
    const alwaysInline = textWidth(always) <= ALWAYS_INLINE_MAX;
    const extra = alwaysInline ? [] : [{ name: "a always allows", value: describeUpdates(updates) }];
    const view =
      (alwaysInline ? await changeView(toolName, input, cwd, style, mark) : undefined) ??
      callView(toolName, input, mark, extra);
    // A short plain call is named in the question line; any other is shown in full above it.
    const shown = view.inline === undefined || !alwaysInline;
    const what = shown
      ? `${style.bold(terminalSafe(toolName, { mode: "exact", mark }))} (the call above)`
      : style.bold(terminalSafe(view.inline ?? toolName, { mode: "exact", mark }));
    const keys = ["y", "n", "t", "a"];
    let answer: Choice;
    for (;;) {
      // The call and the question are drawn together at the bottom of the screen, within its rows.
      const maxRows = Math.max(4, area.rows() - 4);
      const cut = shown && view.isCut(area.columns(), maxRows);
      const question =
        `${shown ? view.render(area.columns(), maxRows) : ""}${style.yellow("?")} Allow ${what}?  ` +
        `${style.bold("y")} yes · ${style.bold("n")} no · ${style.bold("t")} no, and tell it what to do · ${style.bold("a")} always${alwaysInline ? `: ${always}` : ""}` +
        `${cut ? ` · ${style.bold("v")} view it all` : ""} · ${style.bold("esc")} cancel `;
      answer = await area.choose(question, cut ? [...keys, "v"] : keys, signal);
      if (answer === "t") {
        // Esc on the line goes back to the question.
        const said = await area.ask(
          `${style.yellow("?")} What should it do instead? (Enter sends it · esc goes back)`,
          signal,
        );
        if (said !== undefined && !signal.aborted) return tellDeny(said);
        if (signal.aborted) break;
        continue;
      }
      if (answer !== "v") break;
      // The whole call, printed into the scrollback, then the same question again.
      area.show((columns) => view.render(columns));
    }
    if (answer === "y") return { behavior: "allow", updatedInput: input };
    if (answer === "a") return { behavior: "allow", updatedInput: input, updatedPermissions: updates };
    if (answer === "n") return { behavior: "deny", message: "The user said no to this tool call." };
    // Esc, Ctrl-C, or the run was interrupted meanwhile: end the turn rather than answer "no".
    cancelTurn();
    return { behavior: "deny", message: "The user cancelled the turn.", interrupt: true };
  };
}

/** "No", with the user's words for the model (none typed: a plain no). */
function tellDeny(said: string): { behavior: "deny"; message: string } {
  const words = said.trim();
  return {
    behavior: "deny",
    message:
      words === ""
        ? "The user said no to this tool call."
        : `The user said no to this tool call, and said what to do instead: ${words}`,
  };
}

/** What "always" will add, in the words of settings files: `Bash(npm test:*)`, `acceptEdits mode`. */
function describeUpdates(updates: PermissionUpdate[], mark?: (s: string) => string): string {
  const exact = (s: string) => terminalSafe(s, { mode: "exact", mark });
  const parts: string[] = [];
  for (const u of updates) {
    if (u.type === "addRules") parts.push(...u.rules.map((r) => exact(formatRule(r))));
    else if (u.type === "setMode") parts.push(`${exact(u.mode)} mode`);
    else if (u.type === "addDirectories") parts.push(...u.directories.map((d) => `dir ${exact(d)}`));
  }
  return parts.join(", ");
}
