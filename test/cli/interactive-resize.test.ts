import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { reply } from "../support/mock-provider.js";
import { useCliFixture } from "./helpers.js";
import { type PtySession, startPty } from "./pty.js";

const hasScript = (() => {
  try {
    execFileSync("script", ["--version"], { stdio: "ignore" });
    execFileSync("stty", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

const fx = useCliFixture("goat-resize");
const sessions: PtySession[] = [];
afterEach(() => {
  for (const s of sessions.splice(0)) s.kill();
});

/** The line after each turn: its tokens and cost. */
const TURN_FOOTER = / in · .* out · \$\d/;
/** A redraw of the whole transcript starts by clearing the screen and the scrollback. */
const CLEAR_ALL = "\x1b[H\x1b[2J\x1b[3J";

const ANSWER = [
  "Goats are **browsers** rather than grazers: they prefer leaves, twigs and shrubs to grass, which is why a goat on a hillside seems to eat everything but the lawn.",
  "",
  "- They climb trees in Morocco to reach argan fruit, a habit that feeds a whole local industry.",
  "- Their rectangular pupils give them a wide field of view for spotting predators.",
  "",
  "Domesticated some ten thousand years ago, they were among the first animals kept by farmers, and they still give milk, meat and fibre across the world.",
].join("\n");

function start(columns: number, args: string[] = []): PtySession {
  const pty = startPty(args, fx.env, fx.work.path, { columns });
  sessions.push(pty);
  return pty;
}

/** The conversation as shown, from the prompt's echo to just before the turn's footer. */
function conversation(screen: string, prompt: string): string {
  const lines = screen.split("\n");
  const first = lines.findIndex((l) => l.startsWith(`> ${prompt}`));
  const footer = lines.findIndex((l, i) => i > first && TURN_FOOTER.test(l));
  expect(first).toBeGreaterThanOrEqual(0);
  expect(footer).toBeGreaterThan(first);
  return lines.slice(first, footer).join("\n");
}

/** The same conversation in a terminal that had `columns` from the start. */
async function renderedFresh(columns: number, prompt: string): Promise<string> {
  fx.mock.enqueue(reply.text(ANSWER));
  const pty = start(columns);
  let at = await pty.waitFor("> ");
  pty.type(`${prompt}\r`);
  at = await pty.waitFor("fibre across", { from: at });
  await pty.waitFor(TURN_FOOTER, { from: at });
  return conversation(await pty.screen(), prompt);
}

describe.skipIf(!hasScript)("resizing the terminal", () => {
  it("an answer printed at 100 columns is drawn again for 40 after a resize, as a 40-column terminal shows it", async () => {
    fx.mock.enqueue(reply.text(ANSWER));
    const pty = start(100);
    let at = await pty.waitFor("> ");
    pty.type("tell me about goats\r");
    at = await pty.waitFor("fibre across", { from: at });
    await pty.waitFor(TURN_FOOTER, { from: at });
    const wide = conversation(await pty.screen(), "tell me about goats");
    expect(wide).toContain("Goats are browsers rather than grazers: they prefer leaves, twigs and shrubs");

    const mark = pty.raw().length;
    pty.resize(40, 50);
    // The redraw arrives in pieces after its clear: wait for the turn's footer, the last thing it draws.
    const cleared = await pty.waitForRaw(CLEAR_ALL, { from: mark });
    await pty.waitForRaw(" out · $", { from: cleared });
    const narrow = conversation(await pty.screen(), "tell me about goats");
    expect(narrow).not.toEqual(wide);
    for (const line of narrow.split("\n")) expect(line.length).toBeLessThanOrEqual(40);
    // Markdown wrapped for 40 columns (list items indented under their bullet), not the 100-column
    // lines cut by the terminal.
    expect(narrow).toEqual(await renderedFresh(40, "tell me about goats"));
    // Only one copy of the conversation is left: the old one went with the scrollback.
    expect((await pty.screen()).match(/> tell me about goats/g)).toHaveLength(1);
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("a resize while the answer streams leaves no garbled line: the screen is what 40 columns show", async () => {
    fx.mock.enqueue(reply.text(ANSWER, { chunkSize: 6, delayMs: 15 }));
    const pty = start(100);
    let at = await pty.waitFor("> ");
    pty.type("tell me about goats\r");
    at = await pty.waitFor("browsers", { from: at });
    const mark = pty.raw().length;
    pty.resize(40, 50);
    // "fibre across" and the footer were on screen before the resize too: wait for the redraw's own.
    const cleared = await pty.waitForRaw(CLEAR_ALL, { from: mark });
    await pty.waitForRaw(" out · $", { from: cleared });
    const narrow = conversation(await pty.screen(), "tell me about goats");
    expect(narrow).toEqual(await renderedFresh(40, "tell me about goats"));
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("tool lines and the thinking summary are drawn again for the new width too", async () => {
    fx.mock.enqueue(
      reply.message([
        { type: "thinking", thinking: "First I look at the folder, then I answer.", signature: "s" },
        { type: "tool_use", name: "Bash", input: { command: `printf '%s\\n' ${"x".repeat(90)} b c` } },
      ]),
      reply.text("Done."),
    );
    const pty = start(120, ["--permission-mode", "bypassPermissions"]);
    let at = await pty.waitFor("> ");
    pty.type("look\r");
    at = await pty.waitFor("Done.", { from: at });
    await pty.waitFor(TURN_FOOTER, { from: at });
    expect(await pty.screen()).toContain(`⎿ ${"x".repeat(90)}\n`);
    const mark = pty.raw().length;
    pty.resize(50, 50);
    // The redraw arrives in pieces after its clear: wait for its last answer, drawn after the lines checked.
    const cleared = await pty.waitForRaw(CLEAR_ALL, { from: mark });
    await pty.waitForRaw("Done.", { from: cleared });
    const shown = await pty.screen();
    // Bash output is clipped to the width it is drawn at, now 50 columns.
    expect(shown).toMatch(/⎿ x{40,44}…\n/);
    expect(shown).toMatch(/✻ Thought for \d+\.\ds · 9 words \(ctrl\+o to expand\)/);
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });
});
