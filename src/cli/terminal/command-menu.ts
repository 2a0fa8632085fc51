/**
 * The `/` menu of the prompt: while the prompt is a `/` and the start of a command name (no space yet),
 * the commands that match are listed under it, the chosen one highlighted. Up/Down move the choice, Tab
 * completes it into the prompt, Enter runs it. Commands whose names start with what was typed come
 * first, then those that contain it (`/perm` and `/sions` both find `/permissions`).
 */
import type { Style } from "../style.js";
import { terminalSafe } from "./safe-text.js";
import { clipEnd } from "./text-width.js";

/** A command the menu offers: its name with the slash, its argument hint, and what it does. */
export interface MenuCommand {
  name: string;
  argumentHint?: string;
  description: string;
}

/** Rows of the menu shown at most; the choice scrolls within them. */
export const MENU_ROWS = 8;

/** The commands matching `text` (a prompt that is `/` and a partial name), or none when it is not one. */
export function matchingCommands(text: string, commands: readonly MenuCommand[]): MenuCommand[] {
  if (!/^\/[^\s]*$/.test(text)) return [];
  const typed = text.slice(1).toLowerCase();
  const starts = commands.filter((c) => c.name.slice(1).toLowerCase().startsWith(typed));
  const contains = commands.filter(
    (c) => !starts.includes(c) && typed !== "" && c.name.slice(1).toLowerCase().includes(typed),
  );
  return [...starts, ...contains];
}

/** The menu's rows for `matches` with `selected` chosen, each clipped to `columns`. */
export function menuRows(
  matches: readonly MenuCommand[],
  selected: number,
  columns: number,
  style: Style,
): string[] {
  const first = Math.min(Math.max(0, selected - MENU_ROWS + 1), Math.max(0, matches.length - MENU_ROWS));
  const width = Math.min(28, Math.max(...matches.map((c) => usage(c).length)) + 2);
  const rows = matches.slice(first, first + MENU_ROWS).map((c, i) => {
    const chosen = first + i === selected;
    const row = clipEnd(
      `${chosen ? "❯" : " "} ${terminalSafe(usage(c)).padEnd(width)}${terminalSafe(c.description)}`,
      columns - 1,
    );
    return chosen ? style.cyan(row) : style.dim(row);
  });
  if (matches.length > MENU_ROWS) rows.push(style.dim(`  (${matches.length} commands: ↑/↓ for more)`));
  return rows;
}

function usage(c: MenuCommand): string {
  return c.argumentHint ? `${c.name} ${c.argumentHint}` : c.name;
}
