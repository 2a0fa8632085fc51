import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { reply } from "../support/mock-provider.js";
import { useCliFixture } from "./helpers.js";
import { type PtySession, startPty } from "./pty.js";

const hasScript = (() => {
  try {
    execFileSync("script", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

const fx = useCliFixture("goat-render");
let pty: PtySession | undefined;
afterEach(() => {
  pty?.kill();
  pty = undefined;
});

const MARKDOWN = [
  "# Release notes",
  "",
  "Some **bold** words and `inline code`.",
  "",
  "- first item",
  "- second item",
  "",
  "```js",
  "const answer = 42;",
  "```",
  "",
  "| name | value |",
  "|------|-------|",
  "| goat | 1     |",
  "",
  "The end.",
].join("\n");

/** The line after each turn: its tokens and cost. */
const TURN_FOOTER = / in · .* out · \$\d/;

/** SGR sequences (colours, bold, dim): what NO_COLOR forbids. */
const SGR = /\x1b\[[0-9;]*m/;

describe.skipIf(!hasScript)("rendering in a pseudo-terminal", () => {
  it("renders streamed markdown: headings and emphasis without their marks, lists, code, a table", async () => {
    fx.mock.enqueue(reply.text(MARKDOWN, { chunkSize: 5 }));
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type("notes please\r");
    at = await pty.waitFor("The end.", { from: at });
    await pty.waitFor(TURN_FOOTER, { from: at });
    const shown = await pty.screen();
    expect(shown).toContain("Release notes");
    expect(shown).not.toContain("# Release notes");
    expect(shown).toContain("Some bold words and inline code.");
    expect(shown).not.toContain("**bold**");
    expect(shown).toMatch(/\* first item\s+\* second item/);
    expect(shown).toContain("const answer = 42;");
    expect(shown).not.toContain("```");
    expect(shown).toMatch(/│ name │ value │/);
    expect(shown).toMatch(/│ goat │ 1\s+│/);
    // Colours are on in a terminal.
    expect(pty.raw()).toMatch(SGR);
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("shows an Edit as a diff with line numbers, and a long Bash output cut with a count", async () => {
    const file = join(fx.work.path, "notes.txt");
    writeFileSync(file, "line one\nline two\nhello\nline four\n");
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Read", input: { file_path: file } }]),
      reply.toolCalls([
        {
          name: "Edit",
          input: { file_path: file, old_string: "hello", new_string: "hello world\nsecond line" },
        },
      ]),
      reply.toolCalls([{ name: "Bash", input: { command: "seq 1 40" } }]),
      reply.text("Both done."),
    );
    pty = startPty(["--permission-mode", "bypassPermissions"], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type("edit and count\r");
    at = await pty.waitFor("Both done.", { from: at });
    await pty.waitFor(TURN_FOOTER, { from: at });
    const shown = await pty.screen();
    expect(shown).toContain("Updated notes.txt with 2 additions and 1 removal");
    expect(shown).toMatch(/2 {3}line two/);
    expect(shown).toMatch(/3 - hello\n/);
    expect(shown).toMatch(/3 \+ hello world/);
    expect(shown).toMatch(/4 \+ second line/);
    expect(shown).toMatch(/⎿ 1\s+2\s+3\s+4\s+5\s+… \+35 lines hidden/);
    expect(shown).not.toMatch(/^ *6$/m);
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("NO_COLOR: the same layout with no colour or style sequences at all", async () => {
    fx.mock.enqueue(reply.text(MARKDOWN));
    pty = startPty([], { ...fx.env, NO_COLOR: "1" }, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type("notes please\r");
    at = await pty.waitFor("The end.", { from: at });
    await pty.waitFor(TURN_FOOTER, { from: at });
    const shown = await pty.screen();
    expect(shown).toMatch(/│ name │ value │/);
    expect(shown).toContain("Some bold words and inline code.");
    expect(pty.raw()).not.toMatch(SGR);
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("TERM=dumb: plain lines, no status line, no escape sequences; a retry is one line", async () => {
    fx.mock.enqueue(reply.error(429, { headers: { "retry-after": "1" } }), reply.text("Plain **answer**."));
    pty = startPty([], fx.env, fx.work.path, { term: "dumb" });
    let at = await pty.waitFor("> ");
    pty.type("hello\r");
    at = await pty.waitFor(/retrying in 1(\.\d)? ?s \(attempt 1\/\d+\): rate limited \(429\)/, { from: at });
    at = await pty.waitFor("Plain answer.", { from: at });
    await pty.waitFor(TURN_FOOTER, { from: at });
    expect(pty.raw()).not.toContain("\x1b");
    expect(pty.output()).not.toContain("Thinking");
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("shows thinking dimmed before the answer", async () => {
    fx.mock.enqueue(reply.thinking("Weighing the options.\nPicking one.", "The answer is 42."));
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type("think\r");
    at = await pty.waitFor("The answer is 42.", { from: at });
    await pty.waitFor(TURN_FOOTER, { from: at });
    expect(await pty.screen()).toMatch(/✻ Weighing the options\.\n\s+Picking one\.\nThe answer is 42\./);
    expect(pty.raw()).toContain("\x1b[2mWeighing");
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });
});
