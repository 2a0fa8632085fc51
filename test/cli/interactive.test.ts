import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { liveGroupMembers } from "../../src/tools/process-tree.js";
import { writeStdioServer } from "../mcp/helpers.js";
import { reply } from "../support/mock-provider.js";
import { findDescendant } from "../support/processes.js";
import { runCli, useCliFixture } from "./helpers.js";
import { type PtySession, startPty } from "./pty.js";

const hasScript = (() => {
  try {
    execFileSync("script", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

const fx = useCliFixture("goat-pty");
/** The line after each turn (tokens and cost): the turn is over, the next prompt goes to a new turn. */
const TURN_FOOTER = / in · .* out · \$\d/;
let pty: PtySession | undefined;
afterEach(() => {
  pty?.kill();
  pty = undefined;
});

describe.skipIf(!hasScript)("interactive mode in a pseudo-terminal", () => {
  it("streams an answer, shows a tool call with its outcome, and /cost then /exit", async () => {
    const file = join(fx.work.path, "hello.txt");
    writeFileSync(file, "hello pty\n");
    fx.mock.enqueue(
      reply.text("Streaming answer here.", { delayMs: 5 }),
      reply.toolCalls([{ name: "Read", input: { file_path: file } }], { usage: { input: 100, output: 20 } }),
      reply.text("The file says hello."),
    );
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type("first question\r");
    at = await pty.waitFor("Streaming answer here.", { from: at });
    at = await pty.waitFor(TURN_FOOTER, { from: at });
    pty.type("read the file\r");
    at = await pty.waitFor("Read(hello.txt)", { from: at });
    at = await pty.waitFor(/⎿ Read 1 line\n/, { from: at });
    at = await pty.waitFor("The file says hello.", { from: at });
    await pty.waitFor(TURN_FOOTER, { from: at });
    // Each turn's own tokens (the mock's default usage is 10 in, 5 out per call), then the session's.
    const footers = (await pty.screen()).split("\n").filter((l) => TURN_FOOTER.test(l));
    expect(footers).toHaveLength(2);
    expect(footers[0]).toMatch(/^ {2}10 in · 5 out · \$\d+\.\d{4} · \d+\.\ds$/);
    expect(footers[1]).toMatch(/^ {2}110 in · 25 out · \$\d+\.\d{4} · \d+\.\ds$/);
    pty.type("/cost\r");
    at = await pty.waitFor("tokens: 120 in, 30 out", { from: at });
    await pty.waitFor(/cost: \$\d+\.\d{4}/, { from: at });
    pty.type("/exit\r");
    expect(await pty.exited).toBe(0);
    expect(JSON.stringify(fx.mock.requests[1].body.messages)).toContain("Streaming answer here.");
  });

  it("Ctrl-C during a long Bash call returns to the prompt and the next prompt still works", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: "sleep 30" } }]),
      reply.text("Still here after the interrupt."),
    );
    pty = startPty(["--permission-mode", "bypassPermissions"], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type("run something slow\r");
    at = await pty.waitFor("Bash(sleep 30)", { from: at });
    // Interrupt once the command really runs.
    await vi.waitFor(() => expect(findDescendant(pty?.goatPid(), "sleep 30")).toBeDefined(), {
      timeout: 10_000,
    });
    const interruptedAt = Date.now();
    pty.type("\x03");
    at = await pty.waitFor(TURN_FOOTER, { from: at, timeoutMs: 8_000 });
    expect(Date.now() - interruptedAt).toBeLessThan(8_000);
    pty.type("are you there?\r");
    at = await pty.waitFor("Still here after the interrupt.", { from: at });
    await pty.waitFor(TURN_FOOTER, { from: at });
    const last = JSON.stringify(fx.mock.requests.at(-1)?.body.messages);
    expect(last).toContain("are you there?");
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("a slash command typed during a turn is not sent to the model", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: "sleep 2" } }]),
      reply.text("done waiting"),
    );
    pty = startPty(["--permission-mode", "bypassPermissions"], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type("wait a bit\r");
    at = await pty.waitFor("Bash(sleep 2)", { from: at });
    pty.type("/model openai/gpt-4.1\r");
    at = await pty.waitFor("runs between turns", { from: at });
    at = await pty.waitFor("done waiting", { from: at, timeoutMs: 10_000 });
    await pty.waitFor(TURN_FOOTER, { from: at });
    expect(fx.mock.requests).toHaveLength(2);
    expect(JSON.stringify(fx.mock.requests.map((r) => r.body.messages))).not.toContain("/model");
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("the banner names the model, the permission mode, the folder and the session (short id)", async () => {
    fx.mock.enqueue(reply.text("hi there"));
    const args = ["--model", "anthropic/claude-banner-test", "--permission-mode", "acceptEdits"];
    pty = startPty(args, fx.env, fx.work.path);
    let at = await pty.waitFor("Ctrl-D exits");
    const banner = (await pty.screen()).split("\n")[0];
    const match = banner.match(/^goat · (\S+) · (\S+) · (.+) · session ([0-9a-f]{8})$/);
    expect(match?.slice(1, 4)).toEqual([
      "anthropic/claude-banner-test",
      "acceptEdits",
      realpathSync(fx.work.path),
    ]);
    at = await pty.waitFor("> ", { from: at });
    pty.type("hello\r");
    at = await pty.waitFor("hi there", { from: at });
    await pty.waitFor(TURN_FOOTER, { from: at });
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
    // The short id is the start of the session's id, as `goat sessions` lists it.
    const listed = await runCli(["sessions"], { env: fx.env, cwd: fx.work.path });
    expect(listed.stdout.startsWith(match?.[4] ?? "no banner")).toBe(true);
  });

  it("a positional prompt starts the session with that prompt already sent", async () => {
    fx.mock.enqueue(reply.text("This repo is a goat."), reply.text("second answer"));
    pty = startPty(["explain this repo"], fx.env, fx.work.path);
    let at = await pty.waitFor("This repo is a goat.");
    at = await pty.waitFor(TURN_FOOTER, { from: at });
    expect(fx.mock.requests).toHaveLength(1);
    expect(JSON.stringify(fx.mock.requests[0].body.messages)).toContain("explain this repo");
    pty.type("and then?\r");
    await pty.waitFor("second answer", { from: at });
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("--resume with an unknown id and -c with nothing to continue: one line each, before anything starts", async () => {
    for (const [args, line] of [
      [
        ["--resume", "5d1f-no-such-session"],
        "goat: No conversation found with session ID: 5d1f-no-such-session",
      ],
      [["-c"], "goat: No conversation found to continue in "],
    ] as const) {
      pty = startPty([...args], fx.env, fx.work.path);
      expect(await pty.exited).toBe(1);
      const shown = (await pty.screen()).split("\n").filter((l) => l.trim() !== "");
      expect(shown).toHaveLength(1);
      expect(shown[0].startsWith(line)).toBe(true);
    }
    expect(fx.mock.requests).toHaveLength(0);
  });

  it("Ctrl-C twice at an empty prompt exits", async () => {
    pty = startPty([], fx.env, fx.work.path);
    const at = await pty.waitFor("> ");
    pty.type("\x03");
    await pty.waitFor("press Ctrl-C again", { from: at });
    pty.type("\x03");
    expect(await pty.exited).toBe(0);
    expect(fx.mock.requests).toHaveLength(0);
  });
});

describe.skipIf(!hasScript)("interactive permission question and slash commands", () => {
  it("asks before a Bash call in default mode, and answering y runs it", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: "touch made-by-bash.txt" } }]),
      reply.text("Created the file."),
    );
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type("make a file\r");
    at = await pty.waitFor(
      "Allow Bash(touch made-by-bash.txt)?  y yes · n no · t no, and tell it what to do · a always: Bash(touch:*) · esc cancel",
      {
        from: at,
      },
    );
    // Nothing runs before the answer.
    expect(existsSync(join(fx.work.path, "made-by-bash.txt"))).toBe(false);
    // One key answers: no Enter needed.
    pty.type("y");
    at = await pty.waitFor("Created the file.", { from: at });
    expect(existsSync(join(fx.work.path, "made-by-bash.txt"))).toBe(true);
    const [result] = toolResults(fx.mock.requests[1].body);
    expect(result.is_error).toBeFalsy();
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("/model shows the configured model with a picker (Esc keeps it) and /model NAME switches the next request's model", async () => {
    fx.mock.enqueue(reply.text("answered by the other model"));
    pty = startPty(["--model", "anthropic/claude-pty-first"], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type("/model\r");
    at = await pty.waitFor("model: anthropic/claude-pty-first", { from: at });
    // The picker lists the models whose keys are set (the mock's Anthropic key; no OpenAI key here).
    at = await pty.waitFor("Switch to which model?", { from: at });
    // The whole picker is drawn once its last line is.
    at = await pty.waitFor("Esc to cancel", { from: at });
    expect(await pty.screen()).toContain("anthropic/claude-sonnet-4-5");
    expect(await pty.screen()).not.toContain("openai/gpt-4.1 ·");
    pty.type("\x1b");
    at = await pty.waitFor("> ", { from: at });
    // No OPENAI_API_KEY here: refused at once, naming what is missing, and the model stays.
    pty.type("/model openai/gpt-4.1\r");
    at = await pty.waitFor(
      "No API key configured for openai/gpt-4.1: set OPENAI_API_KEY (or OPENAI_BASE_URL to a local gateway). Still using anthropic/claude-pty-first.",
      { from: at },
    );
    pty.type("/model anthropic/claude-pty-second\r");
    at = await pty.waitFor("model set to anthropic/claude-pty-second", { from: at });
    pty.type("hello\r");
    at = await pty.waitFor("answered by the other model", { from: at });
    expect(fx.mock.requests.map((r) => r.body.model)).toEqual(["claude-pty-second"]);
    pty.type("/exit\r");
    expect(await pty.exited).toBe(0);
  });

  it("/compact sends the history to the model for a summary (said once), and the next turn starts from it", async () => {
    fx.mock.enqueue(
      reply.text("Noted: pineapple."),
      reply.text("SUMMARY: the user's word is pineapple."),
      reply.text("Your word was pineapple."),
    );
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type("remember the word pineapple\r");
    at = await pty.waitFor("Noted: pineapple.", { from: at });
    at = await pty.waitFor(TURN_FOOTER, { from: at });
    pty.type("/compact keep the fruit\r");
    at = await pty.waitFor(/\(history compacted: \d+ tokens/, { from: at });
    expect(fx.mock.requests).toHaveLength(2);
    const summaryRequest = JSON.stringify(fx.mock.requests[1].body);
    expect(summaryRequest).toContain("remember the word pineapple");
    expect(summaryRequest).toContain("keep the fruit");
    pty.type("what was my word?\r");
    at = await pty.waitFor("Your word was pineapple.", { from: at });
    const next = JSON.stringify(fx.mock.requests[2].body.messages);
    expect(next).toContain("SUMMARY: the user's word is pineapple.");
    // The summarised prompt is gone (compaction may keep the most recent answer verbatim).
    expect(next).not.toContain("remember the word pineapple");
    expect(pty.output().match(/history compacted/g)).toHaveLength(1);
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("/clear starts a new session: the next request carries none of the earlier messages, and its turn's cost is its own", async () => {
    const usage = { input: 10_000, output: 1_000 };
    fx.mock.enqueue(reply.text("Noted: mango.", { usage }), reply.text("I know of no word.", { usage }));
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type("remember the word mango\r");
    at = await pty.waitFor("Noted: mango.", { from: at });
    at = await pty.waitFor(TURN_FOOTER, { from: at });
    pty.type("/clear\r");
    at = await pty.waitFor("(new session)", { from: at });
    pty.type("what was my word?\r");
    at = await pty.waitFor("I know of no word.", { from: at });
    await pty.waitFor(TURN_FOOTER, { from: at });
    const second = JSON.stringify(fx.mock.requests[1].body.messages);
    expect(second).toContain("what was my word?");
    expect(second).not.toContain("mango");
    // The same usage costs the same: the new session's turn is not the old session's total taken away.
    const costs = (await pty.screen())
      .split("\n")
      .filter((l) => TURN_FOOTER.test(l))
      .map((l) => l.split(" · ")[2]);
    expect(costs).toHaveLength(2);
    expect(costs[0]).toMatch(/^\$\d+\.\d{4}$/);
    expect(Number(costs[0].slice(1))).toBeGreaterThan(0);
    expect(costs[1]).toBe(costs[0]);
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });
});

describe.skipIf(!hasScript)("interactive mode with MCP servers", () => {
  it("/mcp lists each server's status, a server that failed to start with its error", async () => {
    const config = JSON.stringify({
      mcpServers: {
        fx: { command: process.execPath, args: [writeStdioServer(fx.home.path)] },
        broken: { command: join(fx.work.path, "no-such-server") },
      },
    });
    fx.mock.enqueue(reply.text("ready."));
    pty = startPty(["--mcp-config", config], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type("hi\r");
    at = await pty.waitFor("! MCP server broken failed to start (/mcp for details)", { from: at });
    at = await pty.waitFor("ready.", { from: at });
    at = await pty.waitFor(TURN_FOOTER, { from: at });
    pty.type("/mcp\r");
    await pty.waitFor(/fx: connected — \d+ tools/, { from: at });
    await pty.waitFor(/broken: failed — .+/, { from: at });
    expect(fx.mock.requests[0].body.tools.map((t: any) => t.name)).toContain("mcp__fx__echo");
    pty.type("/exit\r");
    expect(await pty.exited).toBe(0);
  });
});

describe.skipIf(!hasScript)("interactive mode ended by a signal", () => {
  it.each([
    ["SIGHUP", 129],
    ["SIGTERM", 143],
  ] as const)(
    "%s during a Bash call ends the session, kills the tool's group and exits %i",
    async (signal, code) => {
      const pidFile = join(fx.work.path, "shell.pid");
      fx.mock.enqueue(
        reply.toolCalls([
          { name: "Bash", input: { command: `echo $$ > ${pidFile}; sleep 1000 & sleep 1000 & wait` } },
        ]),
      );
      pty = startPty(["--permission-mode", "bypassPermissions"], fx.env, fx.work.path);
      await pty.waitFor("> ");
      pty.type("start the sleepers\r");
      const deadline = Date.now() + 10_000;
      let pgid = 0;
      while (Date.now() < deadline) {
        const text = existsSync(pidFile) ? readFileSync(pidFile, "utf8").trim() : "";
        pgid = Number(text);
        if (pgid > 0 && (liveGroupMembers(pgid)?.length ?? 0) >= 3) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(liveGroupMembers(pgid)?.length).toBeGreaterThanOrEqual(3);
      const goat = pty.goatPid();
      expect(goat).toBeDefined();
      process.kill(goat as number, signal);
      expect(await pty.exited).toBe(code);
      expect(liveGroupMembers(pgid)).toEqual([]);
    },
  );
});

function toolResults(body: any): any[] {
  return body.messages.flatMap((m: any) =>
    Array.isArray(m.content) ? m.content.filter((b: any) => b.type === "tool_result") : [],
  );
}
