import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { reply } from "../support/mock-provider.js";
import { startWebServer } from "../tools/web/web-server.js";
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
    // With CI set, as in a CI job's or a dev container's terminal: the renderers' colour detection
    // (chalk) would turn code colours off there; goat's own rule (a terminal, no NO_COLOR) decides.
    pty = startPty([], { ...fx.env, CI: "true" }, fx.work.path);
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
    // The code block is highlighted: the keyword and the number are coloured, the name is not.
    expect(pty.raw()).toMatch(/\x1b\[\d+mconst\x1b\[39m answer = \x1b\[\d+m42\x1b\[39m;/);
    expect(shown).toMatch(/│ name │ value │/);
    expect(shown).toMatch(/│ goat │ 1\s+│/);
    // Colours are on in a terminal.
    expect(pty.raw()).toMatch(SGR);
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("shows an Edit as a coloured diff with line numbers, a Write by its first lines, and a long Bash output cut with a count", async () => {
    const file = join(fx.work.path, "notes.txt");
    writeFileSync(file, "line one\nline two\nhello\nline four\n");
    const rows = Array.from({ length: 12 }, (_, i) => `row ${i + 1}`).join("\n");
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Read", input: { file_path: file } }]),
      reply.toolCalls([
        {
          name: "Edit",
          input: { file_path: file, old_string: "hello", new_string: "hello world\nsecond line" },
        },
      ]),
      reply.toolCalls([
        { name: "Write", input: { file_path: join(fx.work.path, "rows.txt"), content: rows } },
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
    // Removed lines red, added lines green.
    expect(pty.raw()).toContain("\x1b[31m    3 - hello\x1b[39m");
    expect(pty.raw()).toContain("\x1b[32m    3 + hello world\x1b[39m");
    // A new file: how many lines, the first ten in green, the rest counted.
    expect(shown).toContain("Wrote 12 lines to rows.txt");
    expect(shown).toMatch(/ 1 \+ row 1\n(.*\n){8} +10 \+ row 10\n +… \+2 lines\n/);
    expect(shown).not.toContain("row 11");
    expect(pty.raw()).toContain("\x1b[32m    1 + row 1\x1b[39m");
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

  it("output to a pipe (goat | cat): plain lines, no status line, no escape sequences", async () => {
    fx.mock.enqueue(reply.error(429, { headers: { "retry-after": "1" } }), reply.text("Piped **answer**."));
    pty = startPty([], fx.env, fx.work.path, { pipeOutput: true });
    let at = await pty.waitFor("> ");
    pty.type("hello\r");
    at = await pty.waitFor(/retrying in 1(\.\d)? ?s \(attempt 1\/\d+\): rate limited \(429\)/, { from: at });
    at = await pty.waitFor("Piped answer.", { from: at });
    await pty.waitFor(TURN_FOOTER, { from: at });
    expect(pty.raw()).not.toContain("\x1b");
    expect(pty.output()).not.toContain("Thinking");
    expect(fx.mock.requests).toHaveLength(2);
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("thinking is one dim summary line; Ctrl-O shows it in full and hides it again", async () => {
    fx.mock.enqueue(reply.thinking("Weighing the options.\nPicking one.", "The answer is 42."));
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type("think\r");
    at = await pty.waitFor("The answer is 42.", { from: at });
    await pty.waitFor(TURN_FOOTER, { from: at });
    let shown = await pty.screen();
    expect(shown).toMatch(
      /> think\n✻ Thought for \d+\.\ds · 5 words \(ctrl\+o to expand\)\nThe answer is 42\./,
    );
    expect(shown).not.toContain("Weighing");

    let mark = pty.raw().length;
    pty.type("\x0f");
    await pty.waitForRaw("\x1b[3J", { from: mark });
    shown = await pty.screen();
    expect(shown).toMatch(
      /> think\n✻ Thinking…\n {2}Weighing the options\.\n {2}Picking one\.\nThe answer is 42\./,
    );
    expect(shown).not.toContain("ctrl+o to expand");
    expect(pty.raw().slice(mark)).toContain("\x1b[2mWeighing the options.");

    mark = pty.raw().length;
    pty.type("\x0f");
    await pty.waitForRaw("\x1b[3J", { from: mark });
    shown = await pty.screen();
    expect(shown).toContain("(ctrl+o to expand)");
    expect(shown).not.toContain("Weighing");
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it('--verbose (or "verbose": true in settings) streams thinking in full; redacted thinking says so', async () => {
    for (const [args, settings] of [
      [["--verbose"], undefined],
      [[], { verbose: true }],
    ] as const) {
      if (settings) {
        mkdirSync(join(fx.work.path, ".goat"), { recursive: true });
        writeFileSync(join(fx.work.path, ".goat", "settings.json"), JSON.stringify(settings));
      }
      fx.mock.enqueue(
        reply.message(
          [
            { type: "thinking", thinking: "First paragraph.\n\nSecond paragraph.", signature: "s" },
            { type: "redacted_thinking", data: "EncryptedBlob" },
            { type: "text", text: "Done thinking." },
          ],
          { chunkSize: 4 },
        ),
      );
      pty = startPty([...args], fx.env, fx.work.path);
      let at = await pty.waitFor("> ");
      pty.type("think\r");
      at = await pty.waitFor("Done thinking.", { from: at });
      await pty.waitFor(TURN_FOOTER, { from: at });
      expect(await pty.screen()).toMatch(
        /> think\n✻ Thinking…\n {2}First paragraph\.\n\n {2}Second paragraph\.\n✻ Thinking redacted by the provider\nDone thinking\./,
      );
      // Streamed: the paragraph being written showed (dimmed) before it was complete.
      expect(pty.raw()).toContain("  \x1b[2mSe\x1b[22m");
      expect(pty.output()).not.toContain("EncryptedBlob");
      pty.type("\x04");
      expect(await pty.exited).toBe(0);
    }
  });

  it("shows a WebFetch call by its URL and a WebSearch call by its query", async () => {
    const web = await startWebServer({
      "/notes": (_req, res) => {
        res.writeHead(200, { "content-type": "text/plain" }).end("Goat 2.0 is out.");
      },
      "/search": (_req, res) => {
        res.writeHead(200, { "content-type": "application/json" }).end('{"results":[]}');
      },
    });
    try {
      fx.mock.enqueue(
        reply.toolCalls([{ name: "WebFetch", input: { url: web.url("/notes"), prompt: "What is out?" } }]),
        reply.toolCalls([{ name: "WebSearch", input: { query: "goat agent" } }]),
        reply.text("Looked."),
      );
      const args = ["--permission-mode", "bypassPermissions", "--allowedTools", "WebFetch(domain:127.0.0.1)"];
      pty = startPty([...args, "--web-search", `searxng:${web.url("")}`], fx.env, fx.work.path);
      let at = await pty.waitFor("> ");
      pty.type("look it up\r");
      at = await pty.waitFor("Looked.", { from: at });
      await pty.waitFor(TURN_FOOTER, { from: at });
      const shown = await pty.screen();
      expect(shown).toContain(`WebFetch(${web.url("/notes")})`);
      expect(shown).toMatch(/⎿ No small\/fast model is configured/);
      expect(shown).toContain('WebSearch("goat agent")');
      expect(shown).toContain('⎿ No results for "goat agent".');
      pty.type("\x04");
      expect(await pty.exited).toBe(0);
    } finally {
      await web.close();
    }
  });
});
