import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
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

const fx = useCliFixture("goat-keys");
/** The line after each turn (tokens and cost): the turn is over, the next prompt goes to a new turn. */
const TURN_FOOTER = / in · .* out · \$\d/;
let pty: PtySession | undefined;
afterEach(() => {
  pty?.kill();
  pty = undefined;
});

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The text blocks of the last user message of a request, as the model reads them. */
function lastUserTexts(body: any): string[] {
  const last = body.messages.at(-1);
  if (typeof last.content === "string") return [last.content];
  return last.content.filter((b: any) => b.type === "text").map((b: any) => b.text);
}

describe.skipIf(!hasScript)("the prompt editor in a pseudo-terminal", () => {
  it("a bracketed paste of 4 lines is one prompt and one request", async () => {
    fx.mock.enqueue(reply.text("Got all four lines."));
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type("\x1b[200~alpha\r\nbeta\ngamma\rdelta\x1b[201~");
    at = await pty.waitFor("delta", { from: at });
    // Nothing is sent until Enter.
    await new Promise((r) => setTimeout(r, 200));
    expect(fx.mock.requests).toHaveLength(0);
    pty.type("\r");
    at = await pty.waitFor("Got all four lines.", { from: at });
    await new Promise((r) => setTimeout(r, 200));
    expect(fx.mock.requests).toHaveLength(1);
    expect(lastUserTexts(fx.mock.requests[0].body)).toEqual(["alpha\nbeta\ngamma\ndelta"]);
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("a prompt typed before goat has started is submitted by its Enter", async () => {
    fx.mock.enqueue(reply.text("Hello from the model."));
    pty = startPty([], fx.env, fx.work.path);
    // Typed at once: the terminal is still in line mode, where Enter arrives as "\n" later.
    pty.type("say hi\r");
    await pty.waitFor("Hello from the model.");
    expect(fx.mock.requests).toHaveLength(1);
    expect(lastUserTexts(fx.mock.requests[0].body)).toEqual(["say hi"]);
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("\\ + Enter and Shift+Enter insert newlines; Ctrl-A, Ctrl-W, Ctrl-U and history edit the prompt", async () => {
    fx.mock.enqueue(reply.text("first answer"), reply.text("second answer"), reply.text("third answer"));
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    // `\` Enter, then kitty's Shift+Enter (CSI 13;2u), then Enter sends.
    pty.type("one\\\rtwo\x1b[13;2uthree\r");
    at = await pty.waitFor("first answer", { from: at });
    expect(lastUserTexts(fx.mock.requests[0].body)).toEqual(["one\ntwo\nthree"]);
    at = await pty.waitFor(TURN_FOOTER, { from: at });
    // Ctrl-W deletes "world", Ctrl-A goes home, text typed there lands first.
    pty.type("hello world\x17\x01say ");
    pty.type("\r");
    at = await pty.waitFor("second answer", { from: at });
    expect(lastUserTexts(fx.mock.requests[1].body).at(-1)).toBe("say hello ");
    at = await pty.waitFor(TURN_FOOTER, { from: at });
    // Ctrl-U clears; Up recalls the previous prompt.
    pty.type("junk\x15\x1b[A\r");
    at = await pty.waitFor("third answer", { from: at });
    expect(lastUserTexts(fx.mock.requests[2].body).at(-1)).toBe("say hello ");
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("word moves (Alt-B/F, Ctrl-Left), Ctrl-E and history Down edit the prompt as typed", async () => {
    fx.mock.enqueue(reply.text("first answer"), reply.text("second answer"));
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    // Alt-B back over "world", insert; Ctrl-E to the end, append; Ctrl-Left twice lands before "big",
    // Alt-F after it, and the typed text joins that word.
    pty.type("hello world");
    pty.type("\x1bb");
    pty.type("big ");
    pty.type("\x05!");
    pty.type("\x1b[1;5D\x1b[1;5D");
    pty.type("\x1bf");
    pty.type("gest\r");
    at = await pty.waitFor("first answer", { from: at });
    expect(lastUserTexts(fx.mock.requests[0].body)).toEqual(["hello biggest world!"]);
    at = await pty.waitFor(TURN_FOOTER, { from: at });
    // Up shows the previous prompt, Down brings the draft back as it was.
    pty.type("my draft\x1b[A\x1b[B\r");
    at = await pty.waitFor("second answer", { from: at });
    expect(lastUserTexts(fx.mock.requests[1].body).at(-1)).toBe("my draft");
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("Ctrl-D with text typed deletes; on an empty prompt it exits", async () => {
    fx.mock.enqueue(reply.text("got bc"));
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    // Ctrl-A, then Ctrl-D deletes the "a" under the cursor: the session goes on and sends the rest.
    pty.type("abc\x01\x04\r");
    at = await pty.waitFor("got bc", { from: at });
    expect(lastUserTexts(fx.mock.requests[0].body)).toEqual(["bc"]);
    await pty.waitFor(TURN_FOOTER, { from: at });
    // Text typed and cleared (Ctrl-U), then Ctrl-D on the empty prompt leaves.
    pty.type("xyz\x15\x04");
    expect(await pty.exited).toBe(0);
    expect(fx.mock.requests).toHaveLength(1);
  });
});

describe.skipIf(!hasScript)("interrupts, retries and permission questions in a pseudo-terminal", () => {
  it("Ctrl-C before the first token: the next prompt is its own text and the history carries the mark", async () => {
    fx.mock.enqueue(reply.text("this never arrives in time", { delayMs: 3_000 }), reply.text("fresh answer"));
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type("first prompt\r");
    // The status line shows from Enter, before any token.
    at = await pty.waitFor(/Thinking… · \d+\.\ds/, { from: at });
    await until(() => fx.mock.requests.length === 1);
    pty.type("\x03");
    at = await pty.waitFor("Interrupted by user", { from: at });
    at = await pty.waitFor(TURN_FOOTER, { from: at });
    pty.type("second prompt\r");
    at = await pty.waitFor("fresh answer", { from: at });
    expect(fx.mock.requests).toHaveLength(2);
    expect(lastUserTexts(fx.mock.requests[1].body)).toEqual([
      "first prompt",
      "[Request interrupted by user]",
      "second prompt",
    ]);
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("while a tool runs the status line shows it with the elapsed time and the turn's tokens; Esc interrupts", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: "sleep 30" } }], {
        usage: { input: 1200, output: 34 },
      }),
      reply.text("back after Esc"),
    );
    pty = startPty(["--permission-mode", "bypassPermissions"], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type("run something slow\r");
    at = await pty.waitFor("Bash(sleep 30)", { from: at });
    // The line is redrawn every tick: the clock moves on while the command runs.
    const status = /Bash\(sleep 30\) · (\d+\.\d)s · ↑ 1\.2k ↓ 34 tokens · esc to interrupt/g;
    const shownSeconds = () => [...pty!.output().slice(at).matchAll(status)].map((m) => Number(m[1]));
    await until(() => shownSeconds().length > 0);
    const first = shownSeconds()[0];
    await until(() => Math.max(...shownSeconds()) >= first + 0.5);
    const pressed = Date.now();
    pty.type("\x1b");
    at = await pty.waitFor("Interrupted by user", { from: at });
    at = await pty.waitFor(TURN_FOOTER, { from: at });
    expect(Date.now() - pressed).toBeLessThan(8_000);
    // The status line is gone with the turn: nothing redraws it after the footer.
    await new Promise((r) => setTimeout(r, 300));
    expect(pty.output().slice(at)).not.toContain("esc to interrupt");
    pty.type("still there?\r");
    await pty.waitFor("back after Esc", { from: at });
    expect(fx.mock.requests).toHaveLength(2);
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("a retry after a 429 shows why and counts down to the next try", async () => {
    fx.mock.enqueue(reply.error(429, { headers: { "retry-after": "3" } }), reply.text("after the wait"));
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type("hello\r");
    const first = await pty.waitFor(/rate limited \(429\).*retrying in [23]s/, { from: at });
    await pty.waitFor(/retrying in 1s/, { from: first });
    at = await pty.waitFor("after the wait", { from: at, timeoutMs: 15_000 });
    expect(fx.mock.requests).toHaveLength(2);
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it.each([
    ["Esc", "\x1b"],
    ["Ctrl-C", "\x03"],
  ])(
    "%s at a permission question ends the turn: nothing runs, no denial, no second model call",
    async (_, key) => {
      fx.mock.enqueue(reply.toolCalls([{ name: "Bash", input: { command: "touch never-made.txt" } }]));
      pty = startPty([], fx.env, fx.work.path);
      let at = await pty.waitFor("> ");
      pty.type("make a file\r");
      at = await pty.waitFor("Allow Bash(touch never-made.txt)?", { from: at });
      pty.type(key);
      at = await pty.waitFor("Interrupted by user", { from: at });
      await pty.waitFor(TURN_FOOTER, { from: at });
      await new Promise((r) => setTimeout(r, 300));
      expect(fx.mock.requests).toHaveLength(1);
      expect(existsSync(join(fx.work.path, "never-made.txt"))).toBe(false);
      expect(pty.output()).not.toContain("denied");
      pty.type("\x04");
      expect(await pty.exited).toBe(0);
    },
  );

  it("n at a permission question denies once (said once), and the model hears it", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: "touch no-thanks.txt" } }]),
      reply.text("Understood, not touching it."),
    );
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type("make a file\r");
    at = await pty.waitFor("Allow Bash(touch no-thanks.txt)?", { from: at });
    pty.type("n");
    at = await pty.waitFor("Understood, not touching it.", { from: at });
    expect(pty.output().match(/denied/g)).toHaveLength(1);
    expect(existsSync(join(fx.work.path, "no-thanks.txt"))).toBe(false);
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("a denial by the permission mode is one line under the call, clipped to the width", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: "touch /tmp/../etc/goat-never.txt" } }]),
      reply.text("Not allowed, fine."),
    );
    pty = startPty(["--permission-mode", "dontAsk"], fx.env, fx.work.path, { columns: 80 });
    let at = await pty.waitFor("> ");
    pty.type("make a file\r");
    at = await pty.waitFor("Not allowed, fine.", { from: at });
    await pty.waitFor(TURN_FOOTER, { from: at });
    const lines = (await pty.screen()).split("\n");
    const call = lines.findIndex((l) => l.startsWith("● Bash(touch /tmp/../etc/goat-never.txt)"));
    expect(lines[call + 1]).toMatch(/^ {2}⎿ denied: the permission mode is dontAsk and .*…$/);
    expect(lines[call + 1].length).toBeLessThanOrEqual(79);
    expect(lines[call + 2]).toBe("Not allowed, fine.");
    // The model still hears the whole reason.
    expect(JSON.stringify(fx.mock.requests[1].body.messages)).toContain("To allow it");
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("a at a file edit's question names and switches on acceptEdits: the next edit is not asked", async () => {
    const first = join(fx.work.path, "first.txt");
    const second = join(fx.work.path, "second.txt");
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Write", input: { file_path: first, content: "one\n" } }]),
      reply.toolCalls([{ name: "Write", input: { file_path: second, content: "two\n" } }]),
      reply.text("Wrote both."),
    );
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type("write files\r");
    // The call in full (every field) above the question.
    at = await pty.waitFor(`file_path: ${first}`, { from: at });
    at = await pty.waitFor(
      "Allow Write (the call above)?  y yes · n no · t no, and tell it what to do · a always: acceptEdits mode · esc cancel",
      { from: at },
    );
    pty.type("a");
    at = await pty.waitFor("Wrote both.", { from: at });
    // Not a count of "Allow Write" in the raw output: the question is drawn again while it waits
    // (more often on a loaded machine). What matters is that the second edit was never asked.
    expect(pty.output()).not.toContain(`file_path: ${second}`);
    expect(readFileSync(second, "utf8")).toBe("two\n");
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("a at a permission question adds the Bash prefix rule: the same command again is not asked", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: "touch one.txt" } }]),
      reply.toolCalls([{ name: "Bash", input: { command: "touch two.txt" } }]),
      reply.text("Made both."),
    );
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type("make files\r");
    at = await pty.waitFor("a always: Bash(touch:*)", { from: at });
    pty.type("a");
    at = await pty.waitFor("Made both.", { from: at });
    expect(pty.output().match(/Allow Bash/g)).toHaveLength(1);
    expect(existsSync(join(fx.work.path, "two.txt"))).toBe(true);
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });
});
