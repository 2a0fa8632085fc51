/**
 * The built-in tools' input schemas, now plain JSON Schema checked by Goat's validator instead of zod:
 * the model must see exactly what it saw when zod derived them (the fixture is zod 4's output,
 * byte for byte, key order included; WebFetch and WebSearch were added with zod too), and input must come out as zod's `z.object` made it — unknown
 * fields dropped, defaults filled in, the same fields refused.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { BashSandbox } from "../../src/sandbox/bash-sandbox.js";
import { createBashTool } from "../../src/tools/bash.js";
import { builtinTools } from "../../src/tools/builtin.js";
import { validateToolInput } from "../../src/tools/define-tool.js";
import type { Tool } from "../../src/tools/types.js";

const fixture = JSON.parse(
  readFileSync(new URL("./fixtures/builtin-tool-schemas.json", import.meta.url), "utf8"),
) as Record<string, unknown>;

/** Only the setting the Bash tool's schema depends on; the sandbox itself is never started here. */
const sandbox = (leave: boolean) =>
  ({ settings: { allowUnsandboxedCommands: leave } }) as unknown as BashSandbox;

describe("built-in tool schemas", () => {
  const tools: Record<string, Tool> = {
    ...builtinTools,
    "Bash(sandboxed, leaving)": createBashTool({ sandbox: sandbox(true) }),
    "Bash(sandboxed)": createBashTool({ sandbox: sandbox(false) }),
  };

  it.each(Object.keys(fixture))("%s: the model sees the same JSON Schema as before", (name) => {
    expect(JSON.stringify(tools[name].jsonSchema)).toBe(JSON.stringify(fixture[name]));
  });

  it("covers every built-in tool", () => {
    expect(Object.keys(builtinTools).every((name) => name in fixture)).toBe(true);
  });
});

describe("built-in tool input", () => {
  it("drops fields the schema does not name, nested ones too", async () => {
    expect(await validateToolInput(builtinTools.Read, { file_path: "/a", bogus: 1 })).toEqual({
      ok: true,
      value: { file_path: "/a" },
    });
    const todos = await validateToolInput(builtinTools.TodoWrite, {
      todos: [{ content: "x", status: "pending", activeForm: "y", priority: "high" }],
    });
    expect(todos).toEqual({
      ok: true,
      value: { todos: [{ content: "x", status: "pending", activeForm: "y" }] },
    });
  });

  it("fills in defaults", async () => {
    expect(
      await validateToolInput(builtinTools.Edit, { file_path: "/a", old_string: "x", new_string: "y" }),
    ).toEqual({ ok: true, value: { file_path: "/a", old_string: "x", new_string: "y", replace_all: false } });
    expect(
      await validateToolInput(builtinTools.NotebookEdit, { notebook_path: "/n", new_source: "" }),
    ).toEqual({
      ok: true,
      value: { notebook_path: "/n", new_source: "", edit_mode: "replace" },
    });
  });

  it("refuses what zod refused, naming each field", async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ["Bash", { command: "" }, /- command: too short: expected at least 1 character/],
      ["Bash", { command: "ls", timeout: 0 }, /- timeout: too small: expected a number > 0/],
      ["Bash", { command: "ls", timeout: 600_001 }, /- timeout: too big: expected a number <= 600000/],
      ["Read", { file_path: "/a", offset: 1.5 }, /- offset: expected integer, received number/],
      ["Read", { file_path: "/a", limit: 0 }, /- limit: too small: expected a number >= 1/],
      ["Grep", { pattern: "x", output_mode: "lines" }, /- output_mode: expected one of "content" \| /],
      ["TodoWrite", { todos: [{ content: "x", status: "done", activeForm: "y" }] }, /- todos\.0\.status: /],
      ["Write", { file_path: "/a" }, /- content: expected string, received undefined/],
      ["Glob", "not an object", /- \(input\): expected object, received string/],
    ];
    for (const [name, input, message] of cases) {
      const outcome = await validateToolInput(builtinTools[name], input);
      expect(outcome.ok, `${name} ${JSON.stringify(input)}`).toBe(false);
      expect(!outcome.ok && outcome.message, `${name} ${JSON.stringify(input)}`).toMatch(message);
    }
  });
});
