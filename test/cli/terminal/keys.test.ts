import { describe, expect, it } from "vitest";
import { createEditBuffer } from "../../../src/cli/terminal/edit-buffer.js";
import { createKeyDecoder, type Key } from "../../../src/cli/terminal/keys.js";

function decode(...chunks: string[]): Key[] {
  const keys: Key[] = [];
  const d = createKeyDecoder((k) => keys.push(k));
  for (const c of chunks) d.feed(c);
  d.dispose();
  return keys;
}

describe("key decoding", () => {
  it("a bracketed paste split across chunks, even inside its end marker, is one paste with \\n newlines", () => {
    expect(decode("x\x1b[200~one\r\ntw", "o\rthree\x1b[20", "1~y")).toEqual([
      { name: "text", text: "x" },
      { name: "paste", text: "one\ntwo\nthree" },
      { name: "text", text: "y" },
    ]);
  });

  it("Shift+Enter in the kitty protocol and in xterm's modifyOtherKeys, Alt+Enter and Ctrl-J are newlines", () => {
    const names = decode("\x1b[13;2u", "\x1b[27;2;13~", "\x1b\r", "\n", "\r").map((k) => k.name);
    expect(names).toEqual(["newline", "newline", "newline", "newline", "enter"]);
  });

  it("Shift+Tab as back-tab (CSI Z) and in the kitty protocol is tab with shift; Tab alone is not", () => {
    expect(decode("\x1b[Z", "\x1b[9;2u", "\t")).toEqual([
      { name: "tab", shift: true },
      { name: "tab", shift: true, meta: false, ctrl: false },
      { name: "tab" },
    ]);
  });

  it("arrows, word moves, Ctrl keys (legacy and kitty) and Alt+letter", () => {
    const keys = decode("\x1b[A\x1bOB\x1b[1;5D\x1b[1;3C\x03\x1b[99;5u\x1bb\x7f\x1b[3~");
    expect(keys).toEqual([
      { name: "up", shift: false, meta: false, ctrl: false },
      { name: "down" },
      { name: "left", shift: false, meta: false, ctrl: true },
      { name: "right", shift: false, meta: true, ctrl: false },
      { name: "c", ctrl: true },
      { name: "c", shift: false, meta: false, ctrl: true },
      { name: "b", meta: true },
      { name: "backspace" },
      { name: "delete", shift: false, meta: false, ctrl: false },
    ]);
  });

  it("a lone ESC becomes the Escape key after a short wait", async () => {
    const keys: Key[] = [];
    const d = createKeyDecoder((k) => keys.push(k));
    d.feed("\x1b");
    expect(keys).toEqual([]);
    await new Promise((r) => setTimeout(r, 60));
    expect(keys).toEqual([{ name: "escape" }]);
  });
});

describe("the edit buffer", () => {
  it("edits by words and lines, and walks the history without losing the draft", () => {
    const history = ["older", "newer"];
    const b = createEditBuffer(history);
    b.insert("git commit --amend");
    b.wordLeft();
    b.wordLeft();
    expect(b.text.slice(b.cursor)).toBe("commit --amend");
    b.deleteWordLeft();
    expect(b.text).toBe("commit --amend");
    b.lineEnd();
    b.up();
    expect(b.text).toBe("newer");
    b.up();
    b.up();
    expect(b.text).toBe("older");
    b.down();
    b.down();
    expect(b.text).toBe("commit --amend");
    expect(b.take()).toBe("commit --amend");
    expect(history.at(-1)).toBe("commit --amend");
    expect(b.text).toBe("");
  });

  it("up and down move between the lines of a multi-line prompt before the history", () => {
    const b = createEditBuffer(["previous"]);
    b.insert("first line\nsecond");
    b.up();
    expect(b.cursor).toBe(6);
    b.up();
    expect(b.text).toBe("previous");
  });

  it("keeps surrogate pairs whole", () => {
    const b = createEditBuffer();
    b.insert("a🐐b");
    b.left();
    b.left();
    b.backspace();
    expect(b.text).toBe("🐐b");
  });
});
