/**
 * The interactive `goat`'s `/` dispatch with a project's commands: a line naming one of them (or
 * `ns:name` for one in a subfolder) is sent as a prompt for the session to expand, Goat's own
 * commands stay commands, and `/help` lists the project's after Goat's (before, `/fix` answered
 * "unknown command").
 */
import { describe, expect, it } from "vitest";
import {
  isCustomCommand,
  runSlashCommand,
  type SlashContext,
} from "../../src/cli/interactive/slash-commands.js";

const commands = {
  fix: { description: "Fix an issue (project)", argumentHint: "[issue]" },
  deep: { description: "Dig (project:ns)", namespace: "ns" },
};

describe("custom commands in the interactive dispatch", () => {
  it("a project's command, by name or ns:name, is a prompt; Goat's and unknown ones are not", () => {
    expect(isCustomCommand("/fix 12", commands)).toBe(true);
    expect(isCustomCommand("/ns:deep x", commands)).toBe(true);
    expect(isCustomCommand("/deep", commands)).toBe(true);
    expect(isCustomCommand("/help", commands)).toBe(false);
    expect(isCustomCommand("/other", commands)).toBe(false);
    expect(isCustomCommand("/fix", undefined)).toBe(false);
  });

  it("/help lists the project's commands with their argument hints after Goat's", async () => {
    const notes: string[] = [];
    const ctx = { note: (t: string) => notes.push(t), customCommands: commands } as unknown as SlashContext;
    await runSlashCommand("/help", ctx);
    const fix = notes.findIndex((n) => n.startsWith("/fix [issue]") && n.endsWith("Fix an issue (project)"));
    expect(fix).toBeGreaterThan(notes.findIndex((n) => n.startsWith("/exit")));
    expect(notes.some((n) => n.startsWith("/deep") && n.endsWith("Dig (project:ns)"))).toBe(true);
  });
});
