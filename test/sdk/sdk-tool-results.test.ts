/**
 * The `tool_use_result` of the SDK's user messages, read by the official Claude Agent SDK from `goat`:
 * Claude Code's output shape for each core tool (Read, Write, Edit, Bash, Glob, Grep, TodoWrite), and
 * an `"Error: …"` string for a failed call, so code written against Claude Code's results parses Goat's.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useCliFixture } from "../cli/helpers.js";
import { reply } from "../support/mock-provider.js";
import { type ClaudeSdk, loadClaudeSdk } from "./claude-sdk.js";
import { collect, sdkOptions } from "./helpers.js";

const fx = useCliFixture("goat-sdk-tr");
let sdk: ClaudeSdk;
beforeAll(async () => {
  sdk = await loadClaudeSdk();
}, 300_000);

describe("tool_use_result through the SDK", () => {
  it("has Claude Code's shape for each core tool, and an Error string for a failure", async () => {
    const notes = join(fx.work.path, "notes.txt");
    writeFileSync(notes, "alpha\nbeta\ngamma\n");
    const todos = [{ content: "Ship it", status: "in_progress", activeForm: "Shipping it" }];
    const calls: Array<[string, string, Record<string, unknown>]> = [
      ["t_read", "Read", { file_path: notes, limit: 1 }],
      ["t_edit", "Edit", { file_path: notes, old_string: "beta", new_string: "BETA" }],
      ["t_write", "Write", { file_path: notes, content: "alpha\nBETA\n" }],
      ["t_new", "Write", { file_path: join(fx.work.path, "new.txt"), content: "fresh\n" }],
      ["t_bash", "Bash", { command: "echo out; echo err >&2" }],
      ["t_glob", "Glob", { pattern: "*.txt" }],
      ["t_grep", "Grep", { pattern: "fresh", output_mode: "files_with_matches" }],
      ["t_todo", "TodoWrite", { todos }],
      ["t_fail", "Read", { file_path: join(fx.work.path, "missing.txt") }],
    ];
    for (const [id, name, input] of calls) fx.mock.enqueue(reply.toolCalls([{ id, name, input }]));
    fx.mock.enqueue(reply.text("done"));

    const run = await collect(
      sdk.query({
        prompt: "use every tool",
        options: sdkOptions(fx, {
          permissionMode: "bypassPermissions",
          allowDangerouslySkipPermissions: true,
        }),
      }),
    );
    expect(run.error).toBeUndefined();
    const shaped = new Map<string, any>();
    for (const m of run.messages) {
      const block = m.type === "user" && Array.isArray(m.message?.content) ? m.message.content[0] : undefined;
      if (block?.type === "tool_result") shaped.set(block.tool_use_id, m.tool_use_result);
    }

    expect(shaped.get("t_read")).toEqual({
      type: "text",
      file: { filePath: notes, content: "alpha", numLines: 1, startLine: 1, totalLines: 3 },
    });
    expect(shaped.get("t_edit")).toEqual({
      filePath: notes,
      oldString: "beta",
      newString: "BETA",
      originalFile: "alpha\nbeta\ngamma\n",
      structuredPatch: [
        { oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [" alpha", "-beta", "+BETA", " gamma"] },
      ],
      userModified: false,
      replaceAll: false,
    });
    expect(shaped.get("t_write")).toMatchObject({
      type: "update",
      filePath: notes,
      content: "alpha\nBETA\n",
      originalFile: "alpha\nBETA\ngamma\n",
    });
    expect(shaped.get("t_write").structuredPatch[0].lines).toEqual([" alpha", " BETA", "-gamma"]);
    expect(shaped.get("t_new")).toEqual({
      type: "create",
      filePath: join(fx.work.path, "new.txt"),
      content: "fresh\n",
      structuredPatch: [],
      originalFile: null,
    });
    expect(shaped.get("t_bash")).toEqual({
      stdout: "out\nerr",
      stderr: "",
      interrupted: false,
      isImage: false,
    });
    expect(shaped.get("t_glob")).toMatchObject({ numFiles: 2, truncated: false });
    expect(
      shaped
        .get("t_glob")
        .filenames.map((f: string) => f.split("/").pop())
        .sort(),
    ).toEqual(["new.txt", "notes.txt"]);
    expect(typeof shaped.get("t_glob").durationMs).toBe("number");
    expect(shaped.get("t_grep")).toMatchObject({ mode: "files_with_matches", numFiles: 1 });
    expect(shaped.get("t_grep")).not.toHaveProperty("backend");
    expect(shaped.get("t_todo")).toEqual({ oldTodos: [], newTodos: todos });
    expect(shaped.get("t_fail")).toMatch(/^Error: .*missing\.txt/s);
  });
});
