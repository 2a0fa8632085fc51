/**
 * PostToolUse hooks get each built-in tool's `tool_response` in the shape Claude Code gives it, so hook
 * scripts written for Claude Code parse it: Read, Write (create and update), Edit, Bash, Glob, Grep.
 * Real files in a temp folder, real Bash.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { query } from "../../src/sdk/query.js";
import { reply } from "../support/mock-provider.js";
import { collect, mockOptions, useMockProvider } from "./helpers.js";

const mock = useMockProvider();
let cwd: string;
beforeEach(() => {
  cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-response-")));
  return () => fs.rmSync(cwd, { recursive: true, force: true });
});

describe("PostToolUse tool_response", () => {
  it("is shaped as Claude Code's for Read, Write, Edit, Bash, Glob and Grep", async () => {
    const a = path.join(cwd, "a.txt");
    const b = path.join(cwd, "b.txt");
    fs.writeFileSync(a, "one\ntwo\nthree\n");
    const calls: Array<[string, unknown]> = [
      ["Read", { file_path: a }],
      ["Write", { file_path: b, content: "hello\n" }],
      ["Write", { file_path: a, content: "one\nTWO\nthree\n" }],
      ["Edit", { file_path: a, old_string: "three", new_string: "3" }],
      ["Bash", { command: "echo out; echo err >&2" }],
      ["Glob", { pattern: "*.txt" }],
      ["Grep", { pattern: "hel", output_mode: "content" }],
    ];
    for (const [name, input] of calls) mock.enqueue(reply.toolCalls([{ name, input }]));
    mock.enqueue(reply.text("done"));
    const seen: Record<string, unknown[]> = {};
    await collect(
      query({
        prompt: "go",
        options: mockOptions(mock, "anthropic", {
          cwd,
          tools: ["Read", "Write", "Edit", "Bash", "Glob", "Grep"],
          hooks: {
            PostToolUse: [
              {
                hooks: [
                  async (input) => {
                    const i = input as { tool_name: string; tool_response: unknown };
                    seen[i.tool_name] = [...(seen[i.tool_name] ?? []), i.tool_response];
                    return {};
                  },
                ],
              },
            ],
          },
        }),
      }),
    );

    expect(seen.Read[0]).toEqual({
      type: "text",
      file: { filePath: a, content: "one\ntwo\nthree", numLines: 3, startLine: 1, totalLines: 3 },
    });
    expect(seen.Write[0]).toEqual({
      type: "create",
      filePath: b,
      content: "hello\n",
      structuredPatch: [],
      originalFile: null,
    });
    expect(seen.Write[1]).toEqual({
      type: "update",
      filePath: a,
      content: "one\nTWO\nthree\n",
      structuredPatch: [
        { oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [" one", "-two", "+TWO", " three"] },
      ],
      originalFile: "one\ntwo\nthree\n",
    });
    expect(seen.Edit[0]).toEqual({
      filePath: a,
      oldString: "three",
      newString: "3",
      originalFile: "one\nTWO\nthree\n",
      structuredPatch: [
        { oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [" one", " TWO", "-three", "+3"] },
      ],
      userModified: false,
      replaceAll: false,
    });
    expect(seen.Bash[0]).toEqual({ stdout: "out\nerr", stderr: "", interrupted: false, isImage: false });
    expect(seen.Glob[0]).toMatchObject({ numFiles: 2, truncated: false });
    expect((seen.Glob[0] as { filenames: string[] }).filenames.sort()).toEqual([a, b].sort());
    expect(typeof (seen.Glob[0] as { durationMs: unknown }).durationMs).toBe("number");
    expect(seen.Grep[0]).toMatchObject({ mode: "content", numLines: 1 });
    expect((seen.Grep[0] as { content: string }).content).toMatch(/hello/);
    expect(seen.Grep[0]).not.toHaveProperty("backend");
  });

  it("the SDK user messages carry the same shapes as tool_use_result, with no hook; a failure is an Error string", async () => {
    const a = path.join(cwd, "a.txt");
    fs.writeFileSync(a, "x\n");
    const long = path.join(cwd, "long.txt");
    fs.writeFileSync(long, Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join("\n"));
    mock.enqueue(
      reply.toolCalls([{ name: "Read", id: "t_read", input: { file_path: a } }]),
      reply.toolCalls([{ name: "Write", id: "t_write", input: { file_path: a, content: "y\n" } }]),
      reply.toolCalls([{ name: "Read", id: "t_part", input: { file_path: long, offset: 3, limit: 2 } }]),
      reply.toolCalls([{ name: "Bash", id: "t_bash", input: { command: "printf 'a\\nb\\n'" } }]),
      reply.toolCalls([
        { name: "Edit", id: "t_fail", input: { file_path: a, old_string: "absent", new_string: "z" } },
      ]),
      reply.text("done"),
    );
    const messages = await collect(
      query({
        prompt: "go",
        options: mockOptions(mock, "anthropic", { cwd, tools: ["Read", "Write", "Edit", "Bash"] }),
      }),
    );
    const byId = new Map<string, unknown>();
    for (const m of messages) {
      if (m.type !== "user" || !Array.isArray(m.message.content)) continue;
      const block = m.message.content[0] as { tool_use_id?: string };
      if (block.tool_use_id) byId.set(block.tool_use_id, m.tool_use_result);
    }
    expect(byId.get("t_read")).toEqual({
      type: "text",
      file: { filePath: a, content: "x", numLines: 1, startLine: 1, totalLines: 1 },
    });
    expect(byId.get("t_write")).toEqual({
      type: "update",
      filePath: a,
      content: "y\n",
      originalFile: "x\n",
      structuredPatch: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ["-x", "+y"] }],
    });
    // A read that stops early still reports the whole file's line count, as Claude Code's does.
    expect(byId.get("t_part")).toEqual({
      type: "text",
      file: { filePath: long, content: "line 3\nline 4", numLines: 2, startLine: 3, totalLines: 50 },
    });
    expect(byId.get("t_bash")).toEqual({ stdout: "a\nb", stderr: "", interrupted: false, isImage: false });
    expect(byId.get("t_fail")).toMatch(/^Error: .*absent/s);
  });
});
