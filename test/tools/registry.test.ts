import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../src/tools/define-tool.js";
import { editTool } from "../../src/tools/edit.js";
import { readTool } from "../../src/tools/read.js";
import { createToolRegistry } from "../../src/tools/registry.js";
import { writeTool } from "../../src/tools/write.js";

const bashLike = defineTool({
  name: "Bash",
  description: "Runs a command",
  inputSchema: z.object({ command: z.string() }),
  execute: async () => ({ content: "" }),
});

describe("createToolRegistry", () => {
  it("registers tools and finds them by name, in registration order", () => {
    const registry = createToolRegistry([readTool, writeTool]);
    registry.register(editTool);
    expect(registry.get("Read")).toBe(readTool);
    expect(registry.has("Edit")).toBe(true);
    expect(registry.has("Glob")).toBe(false);
    expect(registry.get("Glob")).toBeUndefined();
    expect(registry.list().map((t) => t.name)).toEqual(["Read", "Write", "Edit"]);
  });

  it("refuses a second tool with the same name", () => {
    const registry = createToolRegistry([readTool]);
    expect(() => registry.register(readTool)).toThrow(/already registered/);
    expect(() => createToolRegistry([writeTool, writeTool])).toThrow(/"Write"/);
  });

  it("gives the model name, description and the JSON Schema of each tool", () => {
    const [read] = createToolRegistry([readTool]).definitions();
    expect(read.name).toBe("Read");
    expect(read.description).toContain("cat -n");
    expect(read.input_schema).toMatchObject({
      type: "object",
      properties: { file_path: { type: "string" }, offset: { type: "integer" }, limit: { type: "integer" } },
      required: ["file_path"],
    });
  });

  it("marks replace_all optional in Edit's schema (it has a default)", () => {
    const [edit] = createToolRegistry([editTool]).definitions();
    expect(edit.input_schema.required).toEqual(["file_path", "old_string", "new_string"]);
  });

  it("keeps only allowed tools, and removes disallowed ones", () => {
    const registry = createToolRegistry([readTool, writeTool, editTool, bashLike]);
    expect(
      registry
        .filter({ allowedTools: ["Read", "Edit"] })
        .list()
        .map((t) => t.name),
    ).toEqual(["Read", "Edit"]);
    expect(
      registry
        .filter({ disallowedTools: ["Write"] })
        .list()
        .map((t) => t.name),
    ).toEqual(["Read", "Edit", "Bash"]);
    expect(
      registry
        .filter({ allowedTools: ["Read", "Write"], disallowedTools: ["Write"] })
        .list()
        .map((t) => t.name),
    ).toEqual(["Read"]);
    expect(registry.filter({ allowedTools: [] }).list()).toEqual([]);
  });

  it("leaves pattern rules to the permissions layer: Bash(npm:*) keeps Bash either way", () => {
    const registry = createToolRegistry([readTool, bashLike]);
    expect(registry.filter({ allowedTools: ["Bash(npm:*)"] }).has("Bash")).toBe(true);
    expect(registry.filter({ allowedTools: ["Bash(npm:*)"] }).has("Read")).toBe(false);
    expect(registry.filter({ disallowedTools: ["Bash(rm:*)"] }).has("Bash")).toBe(true);
  });

  it("matches names exactly (no case folding, no prefixes)", () => {
    const registry = createToolRegistry([readTool, bashLike]);
    expect(registry.filter({ disallowedTools: ["read", "Bas"] }).list()).toHaveLength(2);
  });

  it("filters into a new registry and leaves the original unchanged", () => {
    const registry = createToolRegistry([readTool, writeTool]);
    const narrowed = registry.filter({ disallowedTools: ["Write"] });
    narrowed.register(editTool);
    expect(registry.list().map((t) => t.name)).toEqual(["Read", "Write"]);
    expect(narrowed.list().map((t) => t.name)).toEqual(["Read", "Edit"]);
  });

  it("keeps two registries independent", () => {
    const a = createToolRegistry();
    const b = createToolRegistry();
    a.register(readTool);
    expect(b.has("Read")).toBe(false);
  });
});
