/**
 * The interactive `goat` with a project's slash command: `/help` lists it after Goat's commands, and
 * typing `/fix 42` sends the command's prompt, expanded, to the model (before, it answered "unknown
 * command /fix").
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { reply } from "../support/mock-provider.js";
import { trustWorkFolder, useCliFixture } from "./helpers.js";
import { type PtySession, startPty } from "./pty.js";

const hasScript = (() => {
  try {
    execFileSync("script", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

const fx = useCliFixture("goat-pty-commands");
let pty: PtySession | undefined;
afterEach(() => {
  pty?.kill();
  pty = undefined;
});

describe.skipIf(!hasScript)("a project's slash command in the interactive goat", () => {
  it("/help lists it, and /fix 42 reaches the model expanded", async () => {
    mkdirSync(join(fx.work.path, ".claude", "commands"), { recursive: true });
    writeFileSync(
      join(fx.work.path, ".claude", "commands", "fix.md"),
      "---\ndescription: Fix an issue\nargument-hint: [issue]\n---\nPlease fix issue number $1 now.\n",
    );
    trustWorkFolder(fx);
    fx.mock.enqueue(reply.text("Fixed it."));
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor("> ");
    pty.type("/help\r");
    at = await pty.waitFor(/\/fix \[issue\] +Fix an issue \(project\)/, { from: at });
    pty.type("/fix 42\r");
    at = await pty.waitFor("Fixed it.", { from: at });
    pty.type("/exit\r");
    expect(await pty.exited).toBe(0);
    expect(JSON.stringify(fx.mock.requests[0].body.messages[0].content)).toContain(
      "Please fix issue number 42 now.",
    );
  });
});
