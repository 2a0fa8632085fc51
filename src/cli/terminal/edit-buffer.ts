/**
 * The text being typed at the prompt and its editing commands, as a plain model (no terminal): insert,
 * delete, character, word and line moves, Ctrl-U/Ctrl-W/Ctrl-K, and history with up/down. The text may
 * hold newlines (a paste, Shift+Enter); up/down move between its lines before walking the history.
 */

/** Editable text with a cursor (an index into `text`, in UTF-16 units, never inside a surrogate pair). */
export interface EditBuffer {
  readonly text: string;
  readonly cursor: number;
  insert(text: string): void;
  backspace(): void;
  deleteForward(): void;
  left(): void;
  right(): void;
  wordLeft(): void;
  wordRight(): void;
  /** Start of the current line (Ctrl-A, Home). */
  lineStart(): void;
  /** End of the current line (Ctrl-E, End). */
  lineEnd(): void;
  /** Deletes from the start of the current line to the cursor (Ctrl-U). */
  deleteToLineStart(): void;
  /** Deletes from the cursor to the end of the current line (Ctrl-K). */
  deleteToLineEnd(): void;
  /** Deletes the word before the cursor (Ctrl-W, Alt-Backspace). */
  deleteWordLeft(): void;
  /** Up: the line above, or the previous history entry from the first line. */
  up(): void;
  /** Down: the line below, or the next history entry from the last line. */
  down(): void;
  /** Takes the text (adding it to the history) and empties the buffer. */
  take(): string;
  clear(): void;
}

const isWordChar = (ch: string | undefined) => ch !== undefined && /[\p{L}\p{N}_]/u.test(ch);

/** Creates an empty buffer over a shared `history` (oldest first; `take()` appends to it). */
export function createEditBuffer(history: string[] = []): EditBuffer {
  let text = "";
  let cursor = 0;
  // Where in the history up/down is: history.length means "the text being written", kept in `draft`.
  let historyIndex = history.length;
  let draft = "";

  const set = (next: string, at: number) => {
    text = next;
    cursor = Math.max(0, Math.min(at, next.length));
  };
  const prevIndex = (i: number) => (i >= 2 && /[\uDC00-\uDFFF]/.test(text[i - 1]) ? i - 2 : i - 1);
  const nextIndex = (i: number) => (/[\uD800-\uDBFF]/.test(text[i] ?? "") ? i + 2 : i + 1);
  const lineStartOf = (i: number) => text.lastIndexOf("\n", i - 1) + 1;
  const lineEndOf = (i: number) => {
    const end = text.indexOf("\n", i);
    return end < 0 ? text.length : end;
  };
  const column = (i: number) => i - lineStartOf(i);
  const recall = (index: number) => {
    if (historyIndex === history.length) draft = text;
    historyIndex = index;
    const value = index === history.length ? draft : history[index];
    set(value, value.length);
  };

  return {
    get text() {
      return text;
    },
    get cursor() {
      return cursor;
    },
    insert(s) {
      set(text.slice(0, cursor) + s + text.slice(cursor), cursor + s.length);
    },
    backspace() {
      if (cursor === 0) return;
      const from = prevIndex(cursor);
      set(text.slice(0, from) + text.slice(cursor), from);
    },
    deleteForward() {
      if (cursor >= text.length) return;
      set(text.slice(0, cursor) + text.slice(nextIndex(cursor)), cursor);
    },
    left() {
      if (cursor > 0) cursor = prevIndex(cursor);
    },
    right() {
      if (cursor < text.length) cursor = nextIndex(cursor);
    },
    wordLeft() {
      let i = cursor;
      while (i > 0 && !isWordChar(text[i - 1])) i--;
      while (i > 0 && isWordChar(text[i - 1])) i--;
      cursor = i;
    },
    wordRight() {
      let i = cursor;
      while (i < text.length && !isWordChar(text[i])) i++;
      while (i < text.length && isWordChar(text[i])) i++;
      cursor = i;
    },
    lineStart() {
      cursor = lineStartOf(cursor);
    },
    lineEnd() {
      cursor = lineEndOf(cursor);
    },
    deleteToLineStart() {
      const from = lineStartOf(cursor);
      // At the start of a line, Ctrl-U joins it to the line above, as in a shell's multi-line edit.
      const start = from === cursor && from > 0 ? from - 1 : from;
      set(text.slice(0, start) + text.slice(cursor), start);
    },
    deleteToLineEnd() {
      const end = lineEndOf(cursor);
      const stop = end === cursor && end < text.length ? end + 1 : end;
      set(text.slice(0, cursor) + text.slice(stop), cursor);
    },
    deleteWordLeft() {
      let i = cursor;
      while (i > 0 && /\s/.test(text[i - 1])) i--;
      while (i > 0 && !/\s/.test(text[i - 1])) i--;
      set(text.slice(0, i) + text.slice(cursor), i);
    },
    up() {
      const start = lineStartOf(cursor);
      if (start > 0) {
        const above = lineStartOf(start - 1);
        cursor = Math.min(above + column(cursor), start - 1);
        return;
      }
      if (historyIndex > 0) recall(historyIndex - 1);
    },
    down() {
      const end = lineEndOf(cursor);
      if (end < text.length) {
        const below = end + 1;
        cursor = Math.min(below + column(cursor), lineEndOf(below));
        return;
      }
      if (historyIndex < history.length) recall(historyIndex + 1);
    },
    take() {
      const value = text;
      if (value.trim() !== "" && history.at(-1) !== value) history.push(value);
      historyIndex = history.length;
      draft = "";
      set("", 0);
      return value;
    },
    clear() {
      historyIndex = history.length;
      draft = "";
      set("", 0);
    },
  };
}
