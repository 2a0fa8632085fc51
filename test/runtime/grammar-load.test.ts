/**
 * The shell grammar (WASM, 0.1-0.2 s of CPU to load) loads when the model starts writing a Bash
 * call, not when a session starts: a session that never calls Bash never loads it, and the first
 * Bash call is still checked with it.
 */
import { beforeEach, expect, it, vi } from "vitest";
import { reply } from "../support/mock-provider.js";
import { collect, mockOptions, resultOf, tempDir, useMockProvider } from "./helpers.js";

const mock = useMockProvider();

/** query() and the grammar's state from a fresh module graph: no earlier test has loaded the grammar. */
async function freshModules() {
  vi.resetModules();
  const { query } = await import("../../src/sdk/query.js");
  const { shellParserLoadStarted, shellParserReady } = await import("../../src/permissions/shell-parser.js");
  return { query, shellParserLoadStarted, shellParserReady };
}

let cwd: string;
beforeEach(() => {
  cwd = tempDir("goat-grammar-");
});

it("a session with Bash offered that answers in text never loads the grammar", async () => {
  const { query, shellParserLoadStarted } = await freshModules();
  mock.enqueue(reply.text("no tools needed"));
  const messages = await collect(
    query({
      prompt: "hi",
      options: mockOptions(mock, "anthropic", { cwd, tools: ["Bash", "Read"], permissionMode: "default" }),
    }),
  );
  expect(resultOf(messages).subtype).toBe("success");
  expect(shellParserLoadStarted()).toBe(false);
});

it("the first Bash call loads it and is checked with it: a read-only line runs, a compound one that writes is asked", async () => {
  const { query, shellParserReady } = await freshModules();
  mock.enqueue(
    reply.toolCalls([{ name: "Bash", input: { command: "ls | wc -l" }, id: "b1" }]),
    reply.toolCalls([{ name: "Bash", input: { command: "ls && touch made.txt" }, id: "b2" }]),
    reply.text("done"),
  );
  const asked: string[] = [];
  const messages = await collect(
    query({
      prompt: "go",
      options: mockOptions(mock, "anthropic", {
        cwd,
        tools: ["Bash"],
        permissionMode: "default",
        canUseTool: async (_tool, input) => {
          asked.push(String(input.command));
          return { behavior: "deny", message: "no" };
        },
      }),
    }),
  );
  expect(resultOf(messages).subtype).toBe("success");
  expect(shellParserReady()).toBe(true);
  // Only the line that writes reached the host: the pipeline of read-only commands was allowed.
  expect(asked).toEqual(["ls && touch made.txt"]);
});
