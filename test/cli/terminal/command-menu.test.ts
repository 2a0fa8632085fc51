import { describe, expect, it } from "vitest";
import { createStyle } from "../../../src/cli/style.js";
import { matchingCommands, menuRows } from "../../../src/cli/terminal/command-menu.js";

const commands = [
  { name: "/help", description: "show the commands" },
  { name: "/permissions", description: "the rules" },
  { name: "/compact", argumentHint: "[instructions]", description: "summarise" },
  { name: "/status", description: "state" },
];

describe("the / menu", () => {
  it("offers commands only while the prompt is / and a partial name: prefix matches first, then contains", () => {
    expect(matchingCommands("/", commands).map((c) => c.name)).toEqual([
      "/help",
      "/permissions",
      "/compact",
      "/status",
    ]);
    expect(matchingCommands("/s", commands).map((c) => c.name)).toEqual(["/status", "/permissions"]);
    expect(matchingCommands("/sta", commands).map((c) => c.name)).toEqual(["/status"]);
    expect(matchingCommands("/status now", commands)).toEqual([]);
    expect(matchingCommands("hello /s", commands)).toEqual([]);
    expect(matchingCommands("/zzz", commands)).toEqual([]);
  });

  it("rows show usage and description, the choice marked, clipped to the width", () => {
    const rows = menuRows(commands, 2, 30, createStyle(false));
    expect(rows[2].startsWith("❯ /compact [instructions]")).toBe(true);
    expect(rows[0].startsWith("  /help")).toBe(true);
    expect(rows.every((r) => r.length <= 29)).toBe(true);
  });
});
