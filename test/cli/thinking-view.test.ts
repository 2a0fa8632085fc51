import { EventEmitter } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createThinkingView, summaryLine } from "../../src/cli/render/thinking-view.js";
import { createStyle } from "../../src/cli/style.js";
import { createScreen } from "../../src/cli/terminal/screen.js";
import { createTranscript } from "../../src/cli/terminal/transcript.js";
import { loadSettings } from "../../src/settings/files.js";

/** A live screen over a fake terminal, its kept transcript, and a clock the test moves. */
function harness(expanded: boolean, live = true) {
  const out = Object.assign(new EventEmitter(), {
    columns: 40,
    rows: 30,
    write: () => true,
  });
  const transcript = createTranscript();
  const screen = createScreen(out as never, live, { transcript });
  const clock = { now: 1_000 };
  const view = createThinkingView(screen, createStyle(false), {
    expanded,
    live,
    now: () => clock.now,
  });
  return { view, clock, shown: () => transcript.render(40) };
}

describe("the thinking view", () => {
  it("collapsed: one summary line with duration and words; expanded: the heading and the text, wrapped and indented", () => {
    const h = harness(false);
    h.view.start();
    h.view.push("Reading the file first, then the tests that cover it.\n\nThen ");
    h.view.push("an answer.");
    h.clock.now += 3_240;
    h.view.end();
    expect(h.shown()).toBe("✻ Thought for 3.2s · 13 words (ctrl+o to expand)\n");
    h.view.toggle();
    expect(h.shown()).toBe(
      [
        "✻ Thinking…",
        "  Reading the file first, then the",
        "  tests that cover it.",
        "",
        "  Then an answer.",
        "",
      ].join("\n"),
    );
    h.view.toggle();
    expect(h.shown()).toBe("✻ Thought for 3.2s · 13 words (ctrl+o to expand)\n");
  });

  it("expanded while streaming: complete paragraphs are printed as they end, the rest waits", () => {
    const h = harness(true);
    h.view.start();
    h.view.push("One.\n\nTw");
    expect(h.shown()).toBe("✻ Thinking…\n  One.\n\n");
    h.view.push("o.");
    h.view.end();
    expect(h.shown()).toBe("✻ Thinking…\n  One.\n\n  Two.\n");
  });

  it("a whole block has no duration; an empty one (display omitted) says no text came; redacted is one line", () => {
    const h = harness(false);
    h.view.whole("just three words");
    h.view.start();
    h.view.end();
    h.view.redacted();
    expect(h.shown()).toBe(
      [
        "✻ Thought · 3 words (ctrl+o to expand)",
        "✻ Thought for 0.0s (no thinking text was returned)",
        "✻ Thinking redacted by the provider",
        "",
      ].join("\n"),
    );
  });

  it("Ctrl-O while the answer streams leaves the answer's preview alone", () => {
    const previews: string[][] = [];
    const screen = {
      setLive: (_section: string, lines: string[]) => previews.push(lines),
      printBlock: () => {},
    };
    const view = createThinkingView(screen as never, createStyle(false), { expanded: false, live: true });
    view.start();
    view.push("some thought");
    view.toggle();
    expect(previews.at(-1)).toEqual(["  some thought"]);
    view.end();
    const seen = previews.length;
    view.toggle();
    expect(previews).toHaveLength(seen);
  });

  it("without a terminal to press Ctrl-O in, the summary points at --verbose", () => {
    expect(summaryLine({ text: "a b", started: 1, ended: 12_601 }, "--verbose shows it")).toBe(
      "✻ Thought for 13s · 2 words (--verbose shows it)",
    );
  });
});

describe('the "verbose" setting', () => {
  it("is read as a boolean, and anything else is an error naming the file", () => {
    const dir = mkdtempSync(join(tmpdir(), "goat-verbose-"));
    try {
      const file = join(dir, "settings.json");
      writeFileSync(file, JSON.stringify({ verbose: true }));
      expect(loadSettings([file]).verbose).toBe(true);
      writeFileSync(file, JSON.stringify({ verbose: "yes" }));
      expect(() => loadSettings([file])).toThrow(`"verbose" in settings file ${file} must be true or false`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
