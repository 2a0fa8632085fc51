/**
 * The interactive CLI's `/` menu and daily commands (issue 32 item 4), in a real pseudo-terminal:
 * typing `/` lists the commands, Tab completes, Enter runs the chosen one; /permissions, /status,
 * /context, /agents, /export and /init do what Claude Code's do.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
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

const fx = useCliFixture("goat-commands");
let pty: PtySession | undefined;
afterEach(() => {
  pty?.kill();
  pty = undefined;
});

describe.skipIf(!hasScript)("the / menu and the daily slash commands", () => {
  it("/ lists the commands; typing narrows, Tab completes, Enter on a partial name runs the chosen one", async () => {
    mkdirSync(join(fx.work.path, ".goat"), { recursive: true });
    writeFileSync(
      join(fx.work.path, ".goat", "settings.json"),
      JSON.stringify({ permissions: { deny: ["Bash(curl:*)"], allow: ["Bash(npm test)"] } }),
    );
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor("Trust this folder?");
    pty.type("y");
    at = await pty.waitFor("> ", { from: at });
    pty.type("/");
    at = await pty.waitFor("/permissions", { from: at });
    expect(await pty.screen()).toContain("/compact [instructions]");
    pty.type("perm");
    pty.type("\t");
    at = await pty.waitFor("> /permissions", { from: at });
    pty.type("\r");
    at = await pty.waitFor("directories:", { from: at });
    const screen = await pty.screen();
    expect(screen).toMatch(/deny:\n\s+Bash\(curl:\*\)\s+projectSettings/);
    expect(screen).toMatch(/allow:\n\s+Bash\(npm test\)\s+projectSettings/);
    // Enter on "/sta" runs /status.
    pty.type("/sta\r");
    at = await pty.waitFor("permission mode: default", { from: at });
    pty.type("/cont\r");
    at = await pty.waitFor(/context: [\d,]+ of [\d,]+ tokens/, { from: at });
    pty.type("/agents\r");
    at = await pty.waitFor(/general-purpose|no subagents/, { from: at });
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });

  it("/export writes the conversation as markdown; /init sends the CLAUDE.md request to the model", async () => {
    fx.mock.enqueue(reply.text("Hello there, human."), reply.text("I would write a CLAUDE.md now."));
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type("say hello\r");
    at = await pty.waitFor("Hello there, human.", { from: at });
    at = await pty.waitFor(/ in · .* out · \$\d/, { from: at });
    pty.type("/export talk.md\r");
    at = await pty.waitFor("exported", { from: at });
    const exported = readFileSync(join(fx.work.path, "talk.md"), "utf8");
    expect(exported).toMatch(/## User\n\nsay hello/);
    expect(exported).toMatch(/## Assistant\n\nHello there, human\./);
    // Not over an existing file.
    pty.type("/export talk.md\r");
    at = await pty.waitFor("cannot export", { from: at });
    pty.type("/init\r");
    at = await pty.waitFor("I would write a CLAUDE.md now.", { from: at });
    expect(JSON.stringify(fx.mock.requests[1].body.messages)).toContain("write a CLAUDE.md file at its root");
    expect(readdirSync(fx.work.path).filter((f) => f.endsWith(".md"))).toEqual(["talk.md"]);
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
  });
});
