/**
 * A custom slash command's `model` (front matter, or `model` in `slashCommands`) runs the turn it
 * starts on that model, every call of it, and the next turn is back on the session's model. A model
 * Goat cannot use is one warning, and the turn keeps the session's. Before, the field was recorded
 * and the turn ran on the session's model.
 */
import { describe, expect, it } from "vitest";
import { query } from "../../src/sdk/query.js";
import { reply } from "../support/mock-provider.js";
import { collect, echoTool, mockOptions, resultOf, useMockProvider } from "./helpers.js";

const mock = useMockProvider();

async function* twoPrompts(first: string, second: string) {
  yield {
    type: "user" as const,
    message: { role: "user" as const, content: first },
    parent_tool_use_id: null,
  };
  yield {
    type: "user" as const,
    message: { role: "user" as const, content: second },
    parent_tool_use_id: null,
  };
}

describe("a slash command's model", () => {
  it("the command's turn runs on its model, tool calls included; the next turn on the session's", async () => {
    mock.enqueue(
      reply.toolCalls([{ name: "echo", input: { text: "x" } }]),
      reply.text("quick answer"),
      reply.text("normal answer"),
    );
    const messages = await collect(
      query({
        prompt: twoPrompts("/quick look", "and now?"),
        options: mockOptions(mock, "anthropic", {
          tools: [echoTool],
          slashCommands: {
            quick: { description: "Quick look", prompt: "Look: $ARGUMENTS", model: "claude-haiku-4-5" },
          },
        }),
      }),
    );
    const results = messages.filter((m) => m.type === "result") as Array<{ subtype: string }>;
    expect(results.map((r) => r.subtype)).toEqual(["success", "success"]);
    expect(mock.requests.map((r) => r.body.model)).toEqual([
      "claude-haiku-4-5",
      "claude-haiku-4-5",
      "claude-sonnet-4-5",
    ]);
  });

  it("a model Goat cannot use is one warning; the turn keeps the session's model", async () => {
    mock.enqueue(reply.text("ok"));
    const messages = await collect(
      query({
        prompt: "/quick look",
        options: mockOptions(mock, "anthropic", {
          slashCommands: { quick: { description: "Quick", prompt: "Look", model: "nosuchprovider/model-x" } },
        }),
      }),
    );
    expect(resultOf(messages).subtype).toBe("success");
    expect(mock.requests[0].body.model).toBe("claude-sonnet-4-5");
    const warnings = messages.filter((m: any) => m.type === "system" && m.subtype === "informational");
    expect(warnings.map((m: any) => m.content)).toEqual([
      expect.stringContaining("/quick: model nosuchprovider/model-x"),
    ]);
  });
});
