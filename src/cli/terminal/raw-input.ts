/**
 * The prompt editor of a real terminal: stdin in raw mode, keys decoded (`keys.ts`), the text edited
 * (`edit-buffer.ts`) and drawn in the screen's `input` section. A bracketed paste is inserted whole,
 * newlines and all; Shift+Enter (where the terminal reports it), Alt+Enter, Ctrl-J or `\` before Enter
 * insert a newline; Enter submits. Questions and pickers take the keys over while they are shown.
 */
import type { ReadStream } from "node:tty";
import type { Style } from "../style.js";
import { createCommandMenu } from "./command-menu.js";
import { createEditBuffer } from "./edit-buffer.js";
import { createKeyDecoder, type Key } from "./keys.js";
import { createPasteStore } from "./paste-store.js";
import { terminalSafe } from "./safe-text.js";
import type { Screen } from "./screen.js";
import { clipEnd, textWidth } from "./text-width.js";
import type { Choice, InputHandlers, UserInput } from "./user-input.js";

// Bracketed paste on; the kitty keyboard protocol's "disambiguate" level, so Shift+Enter is reported.
const ENABLE = "\x1b[?2004h\x1b[>1u";
const DISABLE = "\x1b[<u\x1b[?2004l";

/** How soon after raw mode is on a first chunk counts as keys typed ahead (already buffered). */
const TYPE_AHEAD_MS = 250;

/** Creates the raw-mode input over `stdin`, drawing through `screen`. */
export function createRawInput(
  stdin: ReadStream,
  terminalOut: { write(s: string): unknown },
  screen: Screen,
  style: Style,
): UserInput {
  const history: string[] = [];
  const buffer = createEditBuffer(history);
  let handlers: InputHandlers | undefined;
  // A question or picker currently owning the keys.
  let capture: ((key: Key) => void) | undefined;
  let visible = true;
  let closed = false;
  let hint: string | undefined;
  const menu = createCommandMenu(
    {
      text: () => buffer.text,
      replace: (text) => {
        buffer.clear();
        buffer.insert(text);
      },
    },
    style,
  );
  const pastes = createPasteStore();

  const promptMark = style.bold("> ");
  const draw = () => {
    if (capture || closed) return;
    if (!visible) {
      screen.setLive("input", []);
      return;
    }
    // A paste may hold control characters: drawn as their stand-ins, the cursor placed after those.
    const lines = buffer.text.split("\n");
    const before = buffer.text.slice(0, buffer.cursor).split("\n");
    const rendered = lines.map((l, i) => `${i === 0 ? promptMark : "  "}${terminalSafe(l)}`);
    rendered.push(...menu.rows(screen.columns));
    if (hint !== undefined) rendered.push(hint);
    screen.setLive("input", rendered, {
      line: before.length - 1,
      column: 2 + textWidth(terminalSafe(before[before.length - 1])),
    });
  };

  const editKey = (key: Key) => {
    if (!handlers) return;
    if (menu.key(key)) {
      draw();
      return;
    }
    const { name } = key;
    if (name === "text" || name === "backspace") menu.reset();
    if (name === "paste") {
      buffer.insert(pastes.collapse(key.text ?? ""));
    } else if (name === "text") {
      buffer.insert(key.text ?? "");
    } else if (name === "enter") {
      if (buffer.text.slice(0, buffer.cursor).endsWith("\\")) {
        // `\` + Enter: a newline, for terminals that do not report Shift+Enter.
        buffer.backspace();
        buffer.insert("\n");
      } else {
        const shown = buffer.take();
        draw();
        const text = pastes.expand(shown);
        handlers.submit(text, text === shown ? undefined : shown);
        return;
      }
    } else if (name === "newline") buffer.insert("\n");
    else if (name === "backspace") key.meta || key.ctrl ? buffer.deleteWordLeft() : buffer.backspace();
    else if (name === "delete") buffer.deleteForward();
    else if (name === "left") key.ctrl || key.meta ? buffer.wordLeft() : buffer.left();
    else if (name === "right") key.ctrl || key.meta ? buffer.wordRight() : buffer.right();
    else if (name === "up") buffer.up();
    else if (name === "down") buffer.down();
    else if (name === "home") buffer.lineStart();
    else if (name === "end") buffer.lineEnd();
    else if (name === "escape") {
      handlers.escape();
      return;
    } else if (name === "tab" && key.shift) {
      handlers.shiftTab?.();
      return;
    } else if (key.ctrl) {
      if (!ctrlKey(name)) return;
    } else if (key.meta) {
      if (name === "b") buffer.wordLeft();
      else if (name === "f") buffer.wordRight();
      else if (name === "d") {
        const at = buffer.cursor;
        buffer.wordRight();
        while (buffer.cursor > at) buffer.backspace();
      } else return;
    } else return;
    draw();
  };

  /** Control keys; false when the key did something else than edit (or nothing). */
  const ctrlKey = (name: string): boolean => {
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
      case "l":
        terminalOut.write("\x1b[2J\x1b[3J\x1b[H");
        return true;
      case "o":
        handlers?.ctrlO();
        return false;
      case "c": {
        const hadText = buffer.text !== "";
        buffer.clear();
        draw();
        handlers?.ctrlC(hadText);
        return false;
      }
      case "d":
        if (buffer.text === "") {
          handlers?.eof();
          return false;
        }
        buffer.deleteForward();
        return true;
      default:
        return false;
    }
  };

  const decoder = createKeyDecoder((key) => {
    if (closed) return;
    if (capture) capture(key);
    else editKey(key);
  });
  // Keys typed before raw mode was on waited in the terminal's line buffer, where Enter already
  // became "\n" (ICRNL). They arrive as the first chunk, at once: there "\n" means Enter, not Ctrl-J.
  let typeAheadUntil = 0;
  const onData = (chunk: string) => {
    if (typeAheadUntil !== 0) {
      // A bracketed paste cannot have been typed ahead: pastes are marked only once raw mode is on.
      if (Date.now() <= typeAheadUntil && !chunk.includes("\x1b[200~")) chunk = chunk.replace(/\n/g, "\r");
      typeAheadUntil = 0;
    }
    decoder.feed(chunk);
  };
  const restore = () => {
    if (stdin.isRaw) stdin.setRawMode(false);
    terminalOut.write(DISABLE);
  };

  /** Shows `lines` in place of the prompt and hands keys to `onKey` until `done` is called. */
  const takeOver = <T>(
    render: () => string[],
    onKey: (key: Key, done: (value: T) => void) => void,
    cancelled: T,
    signal?: AbortSignal,
  ): Promise<T> =>
    new Promise<T>((resolve) => {
      if (signal?.aborted || closed) {
        resolve(cancelled);
        return;
      }
      const done = (value: T) => {
        capture = undefined;
        signal?.removeEventListener("abort", abort);
        draw();
        resolve(value);
      };
      const abort = () => done(cancelled);
      signal?.addEventListener("abort", abort, { once: true });
      const show = () => {
        const lines = render();
        screen.setLive("input", lines, { line: lines.length - 1, column: textWidth(lines.at(-1) ?? "") });
      };
      capture = (key) => {
        onKey(key, done);
        if (capture) show();
      };
      show();
    });

  return {
    start(h) {
      handlers = h;
      stdin.setEncoding("utf8");
      stdin.setRawMode(true);
      typeAheadUntil = Date.now() + TYPE_AHEAD_MS;
      stdin.on("data", onData);
      stdin.resume();
      terminalOut.write(ENABLE);
      process.once("exit", restore);
      draw();
    },
    choose(question, keys, signal) {
      return takeOver<Choice>(
        () => question.split("\n"),
        (key, done) => {
          if (key.name === "escape") done("escape");
          else if (key.ctrl && key.name === "c") done("ctrl-c");
          else if (key.name === "enter" && keys.includes("enter")) done("enter");
          else if (key.name === "text" && key.text && keys.includes(key.text.toLowerCase()))
            done(key.text.toLowerCase());
        },
        "escape",
        signal,
      );
    },
    ask(question, signal) {
      const line = createEditBuffer();
      return takeOver<string | undefined>(
        // Typed at the end only (the cursor is drawn there): a short answer, not an editor.
        () => [...question.split("\n"), `${promptMark}${terminalSafe(line.text)}`],
        (key, done) => {
          if (key.name === "escape" || (key.ctrl && key.name === "c")) done(undefined);
          else if (key.name === "enter") done(line.text);
          else if (key.name === "text" || key.name === "paste")
            line.insert((key.text ?? "").replace(/\n/g, " "));
          else if (key.name === "backspace") key.meta || key.ctrl ? line.deleteWordLeft() : line.backspace();
          else if (key.ctrl && key.name === "u") line.deleteToLineStart();
          else if (key.ctrl && key.name === "w") line.deleteWordLeft();
        },
        undefined,
        signal,
      );
    },
    pick(title, items, signal) {
      let selected = 0;
      const cols = () => screen.columns - 1;
      return takeOver<number | undefined>(
        () => {
          const max = Math.max(3, screen.rows - 4);
          const first = Math.min(Math.max(0, selected - max + 1), Math.max(0, items.length - max));
          const shown = items.slice(first, first + max).map((item, i) => {
            const n = first + i;
            const line = clipEnd(
              `${n === selected ? "❯" : " "} ${String(n + 1).padStart(2)}. ${item}`,
              cols(),
            );
            return n === selected ? style.cyan(line) : line;
          });
          return [style.bold(title), ...shown, style.dim("↑/↓ to move, Enter to choose, Esc to cancel")];
        },
        (key, done) => {
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
        undefined,
        signal,
      );
    },
    setPromptVisible(v) {
      visible = v;
      draw();
    },
    setCommands(list) {
      menu.setCommands(list);
      draw();
    },
    setHint(line) {
      hint = line;
      draw();
    },
    close() {
      if (closed) return;
      closed = true;
      decoder.dispose();
      stdin.off("data", onData);
      restore();
      process.off("exit", restore);
      stdin.pause();
    },
  };
}
