/**
 * `permissionPromptToolName` through query(): an in-process MCP server's tool answers the permission
 * questions `canUseTool` would (what it is asked, an allow that rewrites the input, a deny whose
 * message reaches the model), and every answer that is not a decision denies.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { InvalidOptionError } from "../../src/errors.js";
import { createSdkMcpServer, tool } from "../../src/mcp/sdk-server.js";
import { query } from "../../src/sdk/query.js";
import { reply } from "../support/mock-provider.js";
import { collect, mockOptions, resultOf, tempDir, toolResultsSent, useMockProvider } from "./helpers.js";

const mock = useMockProvider();
let cwd: string;
beforeEach(() => {
  cwd = tempDir("goat-prompt-tool-");
});

/** A server whose `ask` tool answers with `answer(request)` as its text. */
function approver(answer: (request: any) => string, asked: any[]) {
  return createSdkMcpServer({
    name: "approver",
    tools: [
      tool(
        "ask",
        "Answers permission questions",
        { tool_name: z.string(), input: z.record(z.string(), z.unknown()), tool_use_id: z.string() },
        async (request) => {
          asked.push(request);
          return { content: [{ type: "text", text: answer(request) }] };
        },
      ),
    ],
  });
}

const bash = (command: string, id: string) => reply.toolCalls([{ name: "Bash", id, input: { command } }]);

async function runBash(commands: string[], answer: (request: any) => string, asked: any[]) {
  mock.enqueue(...commands.map((c, i) => bash(c, `toolu_${i}`)), reply.text("done"));
  const messages = await collect(
    query({
      prompt: "go",
      options: mockOptions(mock, "anthropic", {
        cwd,
        tools: ["Bash"],
        permissionMode: "default",
        mcpServers: { approver: approver(answer, asked) },
        permissionPromptToolName: "mcp__approver__ask",
      }),
    }),
  );
  return { messages, sent: toolResultsSent(mock.requests.at(-1)!.body) };
}

describe("permissionPromptToolName", () => {
  it("asks the tool; an allow runs its updatedInput, a deny's message reaches the model", async () => {
    const asked: any[] = [];
    const { messages, sent } = await runBash(
      ["touch asked.txt", "touch denied.txt"],
      (r) =>
        r.input.command === "touch asked.txt"
          ? JSON.stringify({ behavior: "allow", updatedInput: { command: "touch rewritten.txt" } })
          : JSON.stringify({ behavior: "deny", message: "not that one" }),
      asked,
    );
    expect(asked).toEqual([
      { tool_name: "Bash", input: { command: "touch asked.txt" }, tool_use_id: "toolu_0" },
      { tool_name: "Bash", input: { command: "touch denied.txt" }, tool_use_id: "toolu_1" },
    ]);
    expect(fs.existsSync(path.join(cwd, "rewritten.txt"))).toBe(true);
    expect(fs.existsSync(path.join(cwd, "asked.txt"))).toBe(false);
    expect(fs.existsSync(path.join(cwd, "denied.txt"))).toBe(false);
    expect(sent[1]).toMatchObject({ isError: true, content: expect.stringContaining("not that one") });
    expect(resultOf(messages).permission_denials).toHaveLength(1);
  });

  it("an allow without updatedInput runs the call as asked", async () => {
    const { sent } = await runBash(["touch plain.txt"], () => JSON.stringify({ behavior: "allow" }), []);
    expect(sent[0].isError).toBe(false);
    expect(fs.existsSync(path.join(cwd, "plain.txt"))).toBe(true);
  });

  it("an answer that is not a decision denies, saying what the tool said", async () => {
    const { sent } = await runBash(["touch maybe.txt"], () => "sure, why not", []);
    expect(sent[0]).toMatchObject({
      isError: true,
      content: expect.stringContaining(
        "The permission prompt tool mcp__approver__ask gave no decision: sure, why not",
      ),
    });
    expect(fs.existsSync(path.join(cwd, "maybe.txt"))).toBe(false);
  });

  it("a tool the session does not have denies; beside canUseTool the option is refused", async () => {
    mock.enqueue(bash("touch nowhere.txt", "toolu_x"), reply.text("done"));
    await collect(
      query({
        prompt: "go",
        options: mockOptions(mock, "anthropic", {
          cwd,
          tools: ["Bash"],
          permissionMode: "default",
          permissionPromptToolName: "mcp__missing__ask",
        }),
      }),
    );
    expect(toolResultsSent(mock.requests[1].body)[0].content).toContain(
      "The permission prompt tool mcp__missing__ask is not available",
    );
    expect(fs.existsSync(path.join(cwd, "nowhere.txt"))).toBe(false);
    expect(() =>
      query({
        prompt: "go",
        options: {
          permissionPromptToolName: "mcp__approver__ask",
          canUseTool: async () => ({ behavior: "allow" }),
        },
      }),
    ).toThrow(InvalidOptionError);
  });
});
