/**
 * The permission modes as the interactive mode cycles them with Shift+Tab, in Claude Code's order:
 * default → acceptEdits → plan → default, with bypassPermissions after plan only when the session was
 * started allowing it (`--dangerously-skip-permissions` or `--allow-dangerously-skip-permissions`).
 * A session started in dontAsk keeps it in the cycle, so the user can come back to it.
 */
import type { PermissionMode } from "../../index.js";
import type { Style } from "../style.js";

/** The mode after `mode` in the Shift+Tab cycle. */
export function nextMode(
  mode: PermissionMode,
  bypassAllowed: boolean,
  startedIn?: PermissionMode,
): PermissionMode {
  const cycle: PermissionMode[] = ["default", "acceptEdits", "plan"];
  if (bypassAllowed) cycle.push("bypassPermissions");
  if (startedIn === "dontAsk" || mode === "dontAsk") cycle.push("dontAsk");
  const at = cycle.indexOf(mode);
  return cycle[(at + 1) % cycle.length];
}

/** The line under the prompt naming the mode; none in the default mode, as in Claude Code. */
export function modeHint(mode: PermissionMode, style: Style): string | undefined {
  const cycle = style.dim(" (shift+tab to cycle)");
  switch (mode) {
    case "acceptEdits":
      return `${style.green("⏵⏵ accept edits on")}${cycle}`;
    case "plan":
      return `${style.cyan("⏸ plan mode on")}${cycle}`;
    case "bypassPermissions":
      return `${style.red("⏵⏵ bypass permissions on")}${cycle}`;
    case "dontAsk":
      return `${style.yellow("⏵⏵ don't ask on: calls that would ask are denied")}${cycle}`;
    default:
      return undefined;
  }
}
