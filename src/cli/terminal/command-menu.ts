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
const MENU_ROWS = 8;

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

/** The menu over a prompt being edited: what it offers, the choice, and the keys it takes. */
export interface CommandMenu {
  setCommands(commands: readonly MenuCommand[]): void;
  /** The menu's rows under the prompt (none when the prompt is not `/` and a partial name). */
  rows(columns: number): string[];
  /**
   * Takes a key while the menu shows: Up/Down move the choice, Tab completes it into the prompt
   * (true: the key was the menu's); Enter on a partial name puts the chosen name in the prompt and
   * is left to the prompt, which then sends it.
   */
  key(key: { name: string; shift?: boolean }): boolean;
  /** Typing changed the prompt: the choice starts over at the first match. */
  reset(): void;
}

/** Creates the menu over `prompt` (its text, and a way to replace it). */
export function createCommandMenu(
  prompt: { text(): string; replace(text: string): void },
  style: Style,
): CommandMenu {
  let commands: readonly MenuCommand[] = [];
  let chosen = 0;
  const matches = () => (commands.length === 0 ? [] : matchingCommands(prompt.text(), commands));
  return {
    setCommands(list) {
      commands = [...list];
    },
    rows(columns) {
      const found = matches();
      return found.length === 0 ? [] : menuRows(found, Math.min(chosen, found.length - 1), columns, style);
    },
    key(key) {
      const found = matches();
      if (found.length === 0) return false;
      const at = Math.min(chosen, found.length - 1);
      if (key.name === "up" || key.name === "down") {
        chosen = (at + (key.name === "up" ? found.length - 1 : 1)) % found.length;
        return true;
      }
      if (key.name === "tab" && !key.shift) {
        prompt.replace(`${found[at].name}${found[at].argumentHint ? " " : ""}`);
        chosen = 0;
        return true;
      }
      if (key.name === "enter" && !found.some((c) => c.name === prompt.text()))
        prompt.replace(found[at].name);
      return false;
    },
    reset() {
      chosen = 0;
    },
  };
}
