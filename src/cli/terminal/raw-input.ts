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
import { applyEditingKey } from "./editing-keys.js";
import { createKeyDecoder, type Key } from "./keys.js";
import { createPasteStore } from "./paste-store.js";
import { terminalSafe } from "./safe-text.js";
import type { Screen } from "./screen.js";
import { answerPrompt, choicePrompt, pickPrompt, type TakeoverPrompt } from "./takeover-prompts.js";
import { textWidth } from "./text-width.js";
import type { InputHandlers, UserInput } from "./user-input.js";

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
    if (name === "paste") buffer.insert(pastes.collapse(key.text ?? ""));
    else if (name === "text") buffer.insert(key.text ?? "");
    else if (name === "enter") {
      if (!buffer.text.slice(0, buffer.cursor).endsWith("\\")) return submit(handlers);
      // `\` + Enter: a newline, for terminals that do not report Shift+Enter.
      buffer.backspace();
      buffer.insert("\n");
    } else if (name === "escape") return handlers.escape();
    else if (name === "tab" && key.shift) return void handlers.shiftTab?.();
    else if (
      key.ctrl &&
      (name === "l" || name === "o" || name === "c" || (name === "d" && buffer.text === ""))
    ) {
      if (!controlAction(handlers, name)) return;
    } else if (!applyEditingKey(buffer, key)) return;
    draw();
  };

  const submit = (h: InputHandlers) => {
    const shown = buffer.take();
    draw();
    const text = pastes.expand(shown);
    h.submit(text, text === shown ? undefined : shown);
  };

  /** The Ctrl keys that act beyond the text; false when the prompt needs no redraw. */
  const controlAction = (h: InputHandlers, name: string): boolean => {
    if (name === "l") {
      terminalOut.write("\x1b[2J\x1b[3J\x1b[H");
      return true;
    }
    if (name === "o") h.ctrlO();
    else if (name === "c") {
      const hadText = buffer.text !== "";
      buffer.clear();
      draw();
      h.ctrlC(hadText);
    } else h.eof(); // Ctrl-D on an empty prompt
    return false;
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

  /** Shows the prompt's lines in place of the editor and hands it the keys until it is done. */
  const takeOver = <T>({ render, onKey, cancelled }: TakeoverPrompt<T>, signal?: AbortSignal): Promise<T> =>
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
    choose: (question, keys, signal) => takeOver(choicePrompt(question, keys), signal),
    ask: (question, signal) => takeOver(answerPrompt(question, promptMark), signal),
    pick: (title, items, signal) => takeOver(pickPrompt(title, items, screen, style), signal),
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
