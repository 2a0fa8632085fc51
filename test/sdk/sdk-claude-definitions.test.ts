/**
 * A Claude Code project's subagent and custom slash commands under the real Claude Agent SDK driving
 * `goat` with `settingSources: ["project"]` in a trusted folder: the SDK's `supportedCommands()` and
 * `supportedAgents()` list them beside the built-in `/compact`, and a prompt `/fix 7` reaches the
 * model expanded (before, both lists held nothing of the project and the prompt went as typed).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { trustWorkFolder, useCliFixture } from "../cli/helpers.js";
import { reply } from "../support/mock-provider.js";
import { type ClaudeSdk, loadClaudeSdk } from "./claude-sdk.js";
import { collect, inits, sdkOptions } from "./helpers.js";

const fx = useCliFixture("goat-sdk-defs");
let sdk: ClaudeSdk;
beforeAll(async () => {
  sdk = await loadClaudeSdk();
}, 300_000);

function write(file: string, text: string) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

describe("a Claude Code project's agents and commands under the SDK", () => {
  it("supportedCommands/supportedAgents list them, and /fix 7 is expanded before the model sees it", async () => {
    write(
      join(fx.work.path, ".claude", "agents", "reviewer.md"),
      "---\nname: reviewer\ndescription: Reviews a change\n---\nYou review.\n",
    );
    write(
      join(fx.work.path, ".claude", "commands", "fix.md"),
      "---\ndescription: Fix an issue\nargument-hint: [issue]\n---\nFix issue number $1 carefully.\n",
    );
    trustWorkFolder(fx);
    fx.mock.enqueue(reply.text("fixed"));
    const q = sdk.query({ prompt: "/fix 7", options: sdkOptions(fx, { settingSources: ["project"] }) });
    const commands = await q.supportedCommands();
    expect(commands).toContainEqual({
      name: "fix",
      description: "Fix an issue (project)",
      argumentHint: "[issue]",
    });
    expect(commands.map((c: { name: string }) => c.name)).toContain("compact");
    expect((await q.supportedAgents()).map((a: { name: string }) => a.name)).toEqual(["reviewer"]);
    const run = await collect(q);
    expect(run.error).toBeUndefined();
    expect(inits(run)[0].slash_commands).toEqual(["compact", "fix"]);
    expect(JSON.stringify(fx.mock.requests[0].body.messages[0].content)).toContain(
      "Fix issue number 7 carefully.",
    );
  });
});
