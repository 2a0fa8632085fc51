/**
 * The interactive CLI in a real pseudo-terminal: what a Claude Code user expects of the permission
 * question and the prompt (issue 32): an edit's question shows the diff it would make, `t` denies
 * with words for the model, Shift+Tab cycles the permission modes with the mode shown, and a long
 * paste shows as one line while all of it is sent, and a silent model is shown waiting.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
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

const fx = useCliFixture("goat-modes");
const TURN_FOOTER = / in · .* out · \$\d/;
const SHIFT_TAB = "\x1b[Z";
let pty: PtySession | undefined;
afterEach(() => {
  pty?.kill();
  pty = undefined;
});

/** The text of every tool result in a request, as the model reads it. */
function toolResults(body: any): string {
  return JSON.stringify(
    body.messages.flatMap((m: any) =>
      Array.isArray(m.content) ? m.content.filter((b: any) => b.type === "tool_result") : [],
    ),
  );
}

describe.skipIf(!hasScript)("the interactive CLI's permission question, modes and pastes", () => {
  it("an Edit's question shows the diff with line numbers; t denies with the user's words, the file unchanged", async () => {
    const file = join(fx.work.path, "app.js");
    const before = "const port = 3000;\nlisten(port);\nlog('up');\n";
    writeFileSync(file, before);
    fx.mock.enqueue(
      reply.toolCalls([
        {
          name: "Edit",
          input: { file_path: file, old_string: "listen(port);", new_string: 'listen(port, "127.0.0.1");' },
        },
      ]),
      reply.text("Fine, I will bind to all interfaces."),
    );
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type("bind to localhost\r");
    at = await pty.waitFor("1 line removed, 1 added", { from: at });
    // The question's last words: the diff above it was drawn in the same frame.
    at = await pty.waitFor("esc cancel", { from: at });
    const screen = await pty.screen();
    expect(screen).toMatch(/ {5}1 {3}const port = 3000;/);
    expect(screen).toMatch(/ {5}2 - listen\(port\);/);
    expect(screen).toMatch(/ {5}2 \+ listen\(port, "127\.0\.0\.1"\);/);
    // The strings to find are not shown as fields: the diff stands for them.
    expect(screen).not.toContain("old_string:");
    pty.type("t");
    at = await pty.waitFor("What should it do instead?", { from: at });
    pty.type("bind to 0.0.0.0 instead\r");
    at = await pty.waitFor("Fine, I will bind to all interfaces.", { from: at });
    expect(readFileSync(file, "utf8")).toBe(before);
    expect(toolResults(fx.mock.requests[1].body)).toContain("bind to 0.0.0.0 instead");
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("Esc at the 'what instead' line goes back to the question; y then runs the Write of a new file", async () => {
    const file = join(fx.work.path, "notes.md");
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Write", input: { file_path: file, content: "# Notes\nfirst\n" } }]),
      reply.text("Written."),
    );
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type("write notes\r");
    at = await pty.waitFor("new file, 2 lines", { from: at });
    at = await pty.waitFor("esc cancel", { from: at });
    expect(await pty.screen()).toMatch(/ {5}2 \+ first/);
    pty.type("t");
    at = await pty.waitFor("What should it do instead?", { from: at });
    pty.type("\x1b");
    at = await pty.waitFor("esc cancel", { from: at });
    pty.type("y");
    at = await pty.waitFor("Written.", { from: at });
    expect(readFileSync(file, "utf8")).toBe("# Notes\nfirst\n");
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("Shift+Tab cycles default → acceptEdits → plan → default, shown under the prompt and obeyed", async () => {
    const file = join(fx.work.path, "made.txt");
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Write", input: { file_path: file, content: "made\n" } }]),
      reply.text("Done writing."),
      reply.toolCalls([
        { name: "Write", input: { file_path: join(fx.work.path, "plan.txt"), content: "x\n" } },
      ]),
      reply.text("In plan mode, not writing."),
    );
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type(SHIFT_TAB);
    at = await pty.waitFor("accept edits on", { from: at });
    pty.type("write it\r");
    at = await pty.waitFor("Done writing.", { from: at });
    at = await pty.waitFor(TURN_FOOTER, { from: at });
    // Asked nothing: acceptEdits allowed the Write.
    expect(pty.output()).not.toContain("Allow Write");
    expect(readFileSync(file, "utf8")).toBe("made\n");
    pty.type(SHIFT_TAB);
    at = await pty.waitFor("plan mode on", { from: at });
    pty.type("now write another\r");
    at = await pty.waitFor("In plan mode, not writing.", { from: at });
    expect(existsSync(join(fx.work.path, "plan.txt"))).toBe(false);
    expect(fx.mock.requests[3].body.messages.length).toBeGreaterThan(0);
    pty.type(SHIFT_TAB);
    await new Promise((r) => setTimeout(r, 300));
    const lines = (await pty.screen()).split("\n");
    expect(lines.at(-1)).not.toContain("plan mode on");
    expect(lines.at(-1)).not.toContain("accept edits on");
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("a 300-line paste shows as [Pasted text #1 +299 lines] and all 300 lines reach the model", async () => {
    fx.mock.enqueue(reply.text("Read all of it."));
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    const pasted = Array.from({ length: 300 }, (_, i) => `line number ${i + 1}`).join("\n");
    pty.type(`summarise: \x1b[200~${pasted}\x1b[201~`);
    at = await pty.waitFor("[Pasted text #1 +299 lines]", { from: at });
    pty.type("\r");
    at = await pty.waitFor("Read all of it.", { from: at });
    expect(pty.output()).not.toContain("line number 150");
    expect(await pty.screen()).toContain("> summarise: [Pasted text #1 +299 lines]");
    const body = JSON.stringify(fx.mock.requests[0].body.messages);
    expect(body).toContain("summarise: line number 1\\nline number 2");
    expect(body).toContain("line number 300");
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("a model that says nothing is shown as waiting, with the seconds of silence; its answer ends that", async () => {
    fx.mock.enqueue(reply.text("Sorry for the wait.", { delayMs: 1_200 }));
    pty = startPty([], { ...fx.env, GOAT_SILENCE_NOTICE_MS: "500" }, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type("hello\r");
    at = await pty.waitFor(/Waiting for the model · no reply for 1 s/, { from: at });
    at = await pty.waitFor("Sorry for the wait.", { from: at });
    await pty.waitFor(TURN_FOOTER, { from: at });
    expect(await pty.screen()).not.toContain("Waiting for the model");
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("tool calls show Claude Code's summaries and the Bash description, and a resumed session shows them the same", async () => {
    writeFileSync(join(fx.work.path, "two.txt"), "first\nsecond\n");
    fx.mock.enqueue(
      reply.toolCalls([
        { name: "Bash", input: { command: "echo hi", description: "Say hi" } },
        { name: "Read", input: { file_path: join(fx.work.path, "two.txt") } },
      ]),
      reply.text("All done."),
    );
    pty = startPty(["--permission-mode", "bypassPermissions"], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    const id = /session ([0-9a-f]{8})/.exec(pty.output())?.[1];
    pty.type("go\r");
    at = await pty.waitFor("All done.", { from: at });
    await pty.waitFor(TURN_FOOTER, { from: at });
    const live = await pty.screen();
    for (const line of ["● Bash(echo hi) · Say hi", "  ⎿ hi", "● Read(two.txt)", "  ⎿ Read 2 lines"])
      expect(live.split("\n")).toContain(line);
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
    pty = startPty(
      ["--resume", id ?? "missing", "--permission-mode", "bypassPermissions"],
      fx.env,
      fx.work.path,
    );
    await pty.waitFor("(resumed session");
    const resumed = await pty.screen();
    for (const line of ["● Bash(echo hi) · Say hi", "  ⎿ hi", "● Read(two.txt)", "  ⎿ Read 2 lines"])
      expect(resumed.split("\n")).toContain(line);
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });
});
