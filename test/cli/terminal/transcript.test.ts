import { EventEmitter } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createScreen, RESIZE_SETTLE_MS } from "../../../src/cli/terminal/screen.js";
import { createTranscript } from "../../../src/cli/terminal/transcript.js";

const CLEAR_ALL = "\x1b[H\x1b[2J\x1b[3J";

/** A fake terminal: a size that can change, and everything written to it. */
function fakeTerminal(columns: number) {
  const out = Object.assign(new EventEmitter(), {
    columns,
    rows: 30,
    written: "",
    write(text: string) {
      out.written += text;
      return true;
    },
  });
  return out;
}

describe("the kept transcript", () => {
  it("draws each block again for the width asked", () => {
    const t = createTranscript();
    t.add((w) => `${"x".repeat(w)}\n`, "x".repeat(100));
    t.add(() => "fixed\n", "fixed\n");
    expect(t.render(40)).toBe(`${"x".repeat(40)}\nfixed\n`);
    expect(t.render(12)).toBe(`${"x".repeat(12)}\nfixed\n`);
  });

  it("a redraw fills at most the row budget with the newest blocks, and says that earlier output is left out", () => {
    const t = createTranscript();
    for (let i = 0; i < 5000; i++) t.add(() => `line ${i}\n`, `line ${i}\n`);
    const lines = t.render(80, 2000).replace(/\n$/, "").split("\n");
    expect(lines).toHaveLength(2001);
    expect(lines[0]).toBe("… earlier output is not redrawn");
    expect(lines[1]).toBe("line 3000");
    expect(lines.at(-1)).toBe("line 4999");
  });

  it("counts wrapped rows: a long line takes several rows, and the oldest block shown is cut to its last lines", () => {
    const t = createTranscript();
    t.add(() => "old 1\nold 2\nold 3\n", "old 1\nold 2\nold 3\n");
    t.add(() => `${"y".repeat(30)}\n`, "y".repeat(30));
    // 30 cells at 10 columns: 3 rows, leaving 2 of the 5 rows for the last lines of the older block.
    expect(t.render(10, 5)).toBe(`… earlier output is not redrawn\nold 2\nold 3\n${"y".repeat(30)}\n`);
  });

  it("blocks that draw nothing take no rows", () => {
    const t = createTranscript();
    t.add(() => "a\n", "a\n");
    for (let i = 0; i < 100; i++) t.add(() => "", "");
    expect(t.render(80, 1)).toBe("a\n");
  });

  it("keeps at most its character budget: the oldest blocks are forgotten", () => {
    const t = createTranscript(1000);
    for (let i = 0; i < 100; i++) t.add(() => `${"z".repeat(99)}\n`, `${"z".repeat(99)}\n`);
    expect(t.size).toBe(10);
    expect(t.render(200).startsWith("… earlier output is not redrawn\n")).toBe(true);
    // A block that prints little but holds more (hidden thinking) counts what it holds.
    t.add(() => "", "", 950);
    expect(t.size).toBe(1);
  });
});

describe("the screen on a resize", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("clears the screen and scrollback and draws the blocks at the new width once the width settles", () => {
    vi.useFakeTimers();
    const out = fakeTerminal(100);
    const screen = createScreen(out as never, true);
    screen.printBlock((w) => `width ${w}\n`);
    expect(out.written).toContain("width 100\n");
    out.columns = 60;
    out.emit("resize");
    vi.advanceTimersByTime(RESIZE_SETTLE_MS / 2);
    out.columns = 40;
    out.emit("resize");
    vi.advanceTimersByTime(RESIZE_SETTLE_MS / 2);
    expect(out.written).not.toContain(CLEAR_ALL);
    vi.advanceTimersByTime(RESIZE_SETTLE_MS);
    const after = out.written.slice(out.written.indexOf(CLEAR_ALL));
    expect(after).toContain("width 40\n");
    expect(after).not.toContain("width 60");
    expect(out.written.split(CLEAR_ALL)).toHaveLength(2);
    screen.close();
  });

  it("does not redraw when only the height changed, or the width came back to where it was", () => {
    vi.useFakeTimers();
    const out = fakeTerminal(100);
    const screen = createScreen(out as never, true);
    screen.printBlock((w) => `width ${w}\n`);
    out.rows = 10;
    out.emit("resize");
    vi.advanceTimersByTime(RESIZE_SETTLE_MS * 2);
    out.columns = 50;
    out.emit("resize");
    out.columns = 100;
    out.emit("resize");
    vi.advanceTimersByTime(RESIZE_SETTLE_MS * 2);
    expect(out.written).not.toContain(CLEAR_ALL);
    screen.close();
  });

  it("keeps plain printed lines too, and nothing at all without cursor control", () => {
    const live = fakeTerminal(80);
    const screen = createScreen(live as never, true);
    screen.print("a partial");
    screen.print(" line\n");
    live.written = "";
    screen.redrawAll();
    expect(live.written).toContain(`${CLEAR_ALL}a partial line\n`);

    const pipe = fakeTerminal(80);
    const plain = createScreen(pipe as never, false);
    plain.printBlock((w) => `width ${w}\n`);
    plain.redrawAll();
    expect(pipe.written).toBe("width 80\n");
  });
});
