import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { reply } from "../support/mock-provider.js";
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

const fx = useCliFixture("goat-sessions");
let pty: PtySession | undefined;
afterEach(() => {
  pty?.kill();
  pty = undefined;
});

describe.skipIf(!hasScript)("goat sessions and the resume picker", () => {
  it("lists this directory's sessions, and goat --resume picks one, shows it and continues it", async () => {
    fx.mock.enqueue(reply.text("Noted: the word is papaya.", { usage: { input: 1000, output: 100 } }));
    const first = await runCli(["-p", "remember the word papaya"], { env: fx.env, cwd: fx.work.path });
    expect(first.code).toBe(0);

    const listed = await runCli(["sessions"], { env: fx.env, cwd: fx.work.path });
    expect(listed.code).toBe(0);
    const [line] = listed.stdout.split("\n");
    expect(line).toMatch(
      /^[0-9a-f-]{36} {2}\d{4}-\d\d-\d\d \d\d:\d\d +1 turns +\$0\.\d{4} +\d+ KB {2}remember the word papaya$/,
    );
    const sessionId = line.slice(0, 36);
    // Another directory has none.
    const elsewhere = await runCli(["sessions", "--cwd", fx.home.path], { env: fx.env, cwd: fx.work.path });
    expect(elsewhere.stdout).toContain("No sessions in");

    fx.mock.enqueue(reply.text("Your word was papaya."));
    pty = startPty(["--resume"], fx.env, fx.work.path);
    let at = await pty.waitFor("Resume which session?");
    // Each entry: when, turns, cost, size, first prompt.
    at = await pty.waitFor(
      /❯ +1\. \d{4}-\d\d-\d\d \d\d:\d\d +1 turns +\$0\.\d{4} +\d+ KB {2}remember the word papaya/,
      { from: at },
    );
    pty.type("\r");
    at = await pty.waitFor(`(resumed session ${sessionId})`, { from: at });
    const replayed = await pty.screen();
    expect(replayed).toMatch(/> remember the word papaya\nNoted: the word is papaya\./);
    pty.type("what was my word?\r");
    await pty.waitFor("Your word was papaya.", { from: at });
    const sent = JSON.stringify(fx.mock.requests.at(-1)?.body.messages);
    expect(sent).toContain("remember the word papaya");
    expect(sent).toContain("what was my word?");
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("lists a session that ran a subagent once, not its subagent's transcript", async () => {
    fx.mock.enqueue(
      reply.toolCalls([
        {
          id: "task1",
          name: "Task",
          input: { description: "look", prompt: "look around", subagent_type: "general-purpose" },
        },
      ]),
      reply.text("the subagent looked"),
      reply.text("All done."),
    );
    const run = await runCli(["-p", "delegate the looking"], { env: fx.env, cwd: fx.work.path });
    expect(run.stdout).toContain("All done.");
    const listed = await runCli(["sessions"], { env: fx.env, cwd: fx.work.path });
    const lines = listed.stdout.split("\n").filter((l) => /^[0-9a-f-]{36} /.test(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("delegate the looking");
  });

  it("/resume in a running session: Esc leaves it be, a digit picks one, which is shown and continued", async () => {
    fx.mock.enqueue(reply.text("Noted: kiwi."));
    const first = await runCli(["-p", "remember the word kiwi"], { env: fx.env, cwd: fx.work.path });
    expect(first.code).toBe(0);
    fx.mock.enqueue(reply.text("Your word was kiwi."));
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type("/resume\r");
    at = await pty.waitFor(/❯ +1\. .*remember the word kiwi/, { from: at });
    pty.type("\x1b");
    at = await pty.waitFor("(not resumed)", { from: at });
    pty.type("/resume\r");
    at = await pty.waitFor(/❯ +1\. .*remember the word kiwi/, { from: at });
    pty.type("1");
    at = await pty.waitFor(/\(resumed session [0-9a-f-]{36}\)/, { from: at });
    expect(await pty.screen()).toMatch(/> remember the word kiwi\nNoted: kiwi\./);
    pty.type("what was my word?\r");
    await pty.waitFor("Your word was kiwi.", { from: at });
    const sent = JSON.stringify(fx.mock.requests.at(-1)?.body.messages);
    expect(sent).toContain("remember the word kiwi");
    expect(sent).toContain("what was my word?");
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("--resume takes a unique prefix of an id (the banner's 8 characters); an ambiguous one lists the candidates", async () => {
    const ids = ["abcd1111-0000-4000-8000-000000000001", "abcd2222-0000-4000-8000-000000000002"];
    for (const [n, id] of ids.entries()) {
      fx.mock.enqueue(reply.text(`Noted: word ${n}.`));
      const run = await runCli(["-p", `remember word ${n}`, "--session-id", id], {
        env: fx.env,
        cwd: fx.work.path,
      });
      expect(run.code).toBe(0);
    }
    fx.mock.enqueue(reply.text("It was word 1."));
    const resumed = await runCli(["-p", "which word?", "-r", "abcd2222"], { env: fx.env, cwd: fx.work.path });
    expect(resumed.stderr).toBe("");
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("It was word 1.");
    const sent = JSON.stringify(fx.mock.requests.at(-1)?.body.messages);
    expect(sent).toContain("remember word 1");
    expect(sent).not.toContain("remember word 0");

    const ambiguous = await runCli(["-p", "which word?", "-r", "abcd"], { env: fx.env, cwd: fx.work.path });
    expect(ambiguous.code).not.toBe(0);
    expect(ambiguous.stderr).toContain(`--resume abcd matches 2 sessions: ${ids[0]}, ${ids[1]}`);
    const none = await runCli(["-p", "which word?", "-r", "ffff"], { env: fx.env, cwd: fx.work.path });
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain("No conversation found with session ID: ffff");
  });

  it("a session left before its first prompt leaves no transcript, so nothing lists it", async () => {
    pty = startPty([], fx.env, fx.work.path);
    await pty.waitFor("> ");
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
    const projects = join(fx.home.path, "projects");
    const files = existsSync(projects)
      ? readdirSync(projects, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".jsonl"))
      : [];
    expect(files).toEqual([]);
    const listed = await runCli(["sessions"], { env: fx.env, cwd: fx.work.path });
    expect(listed.stdout).toContain("No sessions in");
  });

  it("/help lists the commands", async () => {
    pty = startPty([], fx.env, fx.work.path);
    const at = await pty.waitFor("> ");
    pty.type("/help\r");
    await pty.waitFor(/\/resume +pick a recent session/, { from: at });
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });
});
