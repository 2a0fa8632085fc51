/**
 * The keys that edit the prompt's text and nothing else: moving the cursor (arrows, Home/End, the
 * Emacs Ctrl and Alt keys), deleting, and inserting a newline. The prompt (raw-input.ts) handles the
 * keys that do more (Enter, Escape, Ctrl-C, Ctrl-D on an empty prompt…) before handing the rest here.
 */
import type { EditBuffer } from "./edit-buffer.js";
import type { Key } from "./keys.js";

/** Applies an editing key to `buffer`; false when the key is not one (nothing changed). */
export function applyEditingKey(buffer: EditBuffer, key: Key): boolean {
  const { name } = key;
  if (name === "newline") buffer.insert("\n");
  else if (name === "backspace") key.meta || key.ctrl ? buffer.deleteWordLeft() : buffer.backspace();
  else if (name === "delete") buffer.deleteForward();
  else if (name === "left") key.ctrl || key.meta ? buffer.wordLeft() : buffer.left();
  else if (name === "right") key.ctrl || key.meta ? buffer.wordRight() : buffer.right();
  else if (name === "up") buffer.up();
  else if (name === "down") buffer.down();
  else if (name === "home") buffer.lineStart();
  else if (name === "end") buffer.lineEnd();
  else if (key.ctrl) return controlEdit(buffer, name);
  else if (key.meta) return metaEdit(buffer, name);
  else return false;
  return true;
}

/** Ctrl+letter, as Emacs and readline bind them. */
function controlEdit(buffer: EditBuffer, name: string): boolean {
  switch (name) {
    case "a":
      buffer.lineStart();
      return true;
    case "e":
      buffer.lineEnd();
      return true;
    case "b":
      buffer.left();
      return true;
    case "f":
      buffer.right();
      return true;
    case "p":
      buffer.up();
      return true;
    case "n":
      buffer.down();
      return true;
    case "u":
      buffer.deleteToLineStart();
      return true;
    case "k":
      buffer.deleteToLineEnd();
      return true;
    case "w":
      buffer.deleteWordLeft();
      return true;
    case "h":
      buffer.backspace();
      return true;
    case "d":
      buffer.deleteForward();
      return true;
    default:
      return false;
  }
}

/** Alt+letter: a word back, a word forward, delete the word forward. */
function metaEdit(buffer: EditBuffer, name: string): boolean {
  if (name === "b") buffer.wordLeft();
  else if (name === "f") buffer.wordRight();
  else if (name === "d") {
    const at = buffer.cursor;
    buffer.wordRight();
    while (buffer.cursor > at) buffer.backspace();
  } else return false;
  return true;
}
