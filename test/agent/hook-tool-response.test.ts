/**
 * PostToolUse hooks get each built-in tool's `tool_response` in the shape Claude Code gives it, so hook
 * scripts written for Claude Code parse it: Read, Write (create and update), Edit, Bash, Glob, Grep.
 * Real files in a temp folder, real Bash.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { query } from "../../src/sdk/query.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { collect, mockOptions } from "./helpers.js";

let mock: MockProvider;
let cwd: string;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());
beforeEach(() => {
  mock.requests.length = 0;
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

  it("leaves the extra fields out of results nobody hooks (tool_use_result stays small)", async () => {
    const a = path.join(cwd, "a.txt");
    fs.writeFileSync(a, "x\n");
    mock.enqueue(
      reply.toolCalls([{ name: "Read", input: { file_path: a } }]),
      reply.toolCalls([{ name: "Write", input: { file_path: a, content: "y\n" } }]),
      reply.text("done"),
    );
    const messages = await collect(
      query({ prompt: "go", options: mockOptions(mock, "anthropic", { cwd, tools: ["Read", "Write"] }) }),
    );
    const results = messages.flatMap((m) =>
      m.type === "user" && "tool_use_result" in m ? [m.tool_use_result as Record<string, unknown>] : [],
    );
    const write = results.find((r) => r.type === "update");
    expect(write).toBeDefined();
    expect(write).not.toHaveProperty("originalFile");
  });
});
