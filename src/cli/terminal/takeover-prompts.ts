/**
 * The prompts that take the keys over from the editor while they are shown (raw-input.ts): a question
 * answered by one key, a short typed answer, and a list to pick from. Each is its lines and what a key
 * does; `done` ends it with its value.
 */
import type { Style } from "../style.js";
import { createEditBuffer } from "./edit-buffer.js";
import type { Key } from "./keys.js";
import { terminalSafe } from "./safe-text.js";
import type { Screen } from "./screen.js";
import { clipEnd } from "./text-width.js";
import type { Choice } from "./user-input.js";

/** A prompt shown in place of the editor until `done` is called (or it is cancelled, with `cancelled`). */
export interface TakeoverPrompt<T> {
  render(): string[];
  onKey(key: Key, done: (value: T) => void): void;
  /** The value when the prompt is aborted or the input closed. */
  cancelled: T;
}

/** A question answered by one of `keys` (lowercase letters, or "enter"), Escape or Ctrl-C. */
export function choicePrompt(question: string, keys: string[]): TakeoverPrompt<Choice> {
  return {
    render: () => question.split("\n"),
    onKey(key, done) {
      if (key.name === "escape") done("escape");
      else if (key.ctrl && key.name === "c") done("ctrl-c");
      else if (key.name === "enter" && keys.includes("enter")) done("enter");
      else if (key.name === "text" && key.text && keys.includes(key.text.toLowerCase()))
        done(key.text.toLowerCase());
    },
    cancelled: "escape",
  };
}

/** A one-line typed answer; undefined when cancelled. */
export function answerPrompt(question: string, promptMark: string): TakeoverPrompt<string | undefined> {
  const line = createEditBuffer();
  return {
    // Typed at the end only (the cursor is drawn there): a short answer, not an editor.
    render: () => [...question.split("\n"), `${promptMark}${terminalSafe(line.text)}`],
    onKey(key, done) {
      if (key.name === "escape" || (key.ctrl && key.name === "c")) done(undefined);
      else if (key.name === "enter") done(line.text);
      else if (key.name === "text" || key.name === "paste") line.insert((key.text ?? "").replace(/\n/g, " "));
      else if (key.name === "backspace") key.meta || key.ctrl ? line.deleteWordLeft() : line.backspace();
      else if (key.ctrl && key.name === "u") line.deleteToLineStart();
      else if (key.ctrl && key.name === "w") line.deleteWordLeft();
    },
    cancelled: undefined,
  };
}

/** A list to pick from with the arrows or a digit; the index picked, undefined when cancelled. */
export function pickPrompt(
  title: string,
  items: string[],
  screen: Screen,
  style: Style,
): TakeoverPrompt<number | undefined> {
  let selected = 0;
  const cols = () => screen.columns - 1;
  return {
    render() {
      const max = Math.max(3, screen.rows - 4);
      const first = Math.min(Math.max(0, selected - max + 1), Math.max(0, items.length - max));
      const shown = items.slice(first, first + max).map((item, i) => {
        const n = first + i;
        const line = clipEnd(`${n === selected ? "❯" : " "} ${String(n + 1).padStart(2)}. ${item}`, cols());
        return n === selected ? style.cyan(line) : line;
      });
      return [style.bold(title), ...shown, style.dim("↑/↓ to move, Enter to choose, Esc to cancel")];
    },
    onKey(key, done) {
      if (key.name === "escape" || (key.ctrl && key.name === "c")) done(undefined);
      else if (key.name === "up" || (key.ctrl && key.name === "p")) selected = Math.max(0, selected - 1);
      else if (key.name === "down" || (key.ctrl && key.name === "n"))
        selected = Math.min(items.length - 1, selected + 1);
      else if (key.name === "enter") done(selected);
      else if (key.name === "text" && /^[1-9]$/.test(key.text ?? "")) {
        const n = Number(key.text) - 1;
        if (n < items.length) done(n);
      }
    },
    cancelled: undefined,
  };
}
