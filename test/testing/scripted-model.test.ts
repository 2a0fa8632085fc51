/**
 * The in-memory model `goat-agent/testing` ships, used as a user would: imported from the entry
 * points, given to `query()` and `Agent` as their provider, with no HTTP server anywhere.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, defineTool, isProviderError, ProviderError, query } from "../../src/index.js";
import { reply, scriptedModel } from "../../src/testing/index.js";
import { collect, resultOf } from "../runtime/helpers.js";

const shout = defineTool({
  name: "shout",
  description: "upper-cases its text",
  inputSchema: z.object({ text: z.string() }),
  execute: async ({ text }) => ({ content: text.toUpperCase() }),
});

/** The smallest options a user needs: the model's id and the model itself as the provider. */
function optionsFor(model: ReturnType<typeof scriptedModel>) {
  return {
    model: model.id,
    provider: model,
    tools: [shout],
    persistSession: false,
    permissionMode: "bypassPermissions" as const,
    retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 1 },
  };
}

describe("scriptedModel", () => {
  it("drives query() through a tool round and records what the agent sent back", async () => {
    const model = scriptedModel();
    model.enqueue(reply.toolCalls([{ name: "shout", input: { text: "hi" }, id: "c1" }]), reply.text("done"));
    const messages = await collect(query({ prompt: "shout hi", options: optionsFor(model) }));
    expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "done", num_turns: 2 });
    expect(model.pending()).toBe(0);
    expect(model.requests).toHaveLength(2);
    const toolResult = model.requests[1].messages.at(-1);
    expect(JSON.stringify(toolResult)).toContain('"tool_use_id":"c1"');
    expect(JSON.stringify(toolResult)).toContain("HI");
  });

  it("drives an Agent over several prompts, one script for the whole session", async () => {
    const model = scriptedModel({ name: "fake", model: "m1" });
    expect(model.id).toBe("fake/m1");
    model.enqueue(reply.text("first"), reply.text("second"));
    const agent = new Agent(optionsFor(model));
    try {
      expect((await agent.prompt("one")).result).toBe("first");
      expect((await agent.prompt("two")).result).toBe("second");
    } finally {
      await agent.close();
    }
    // The second request carries the first exchange: the session's history reached the model.
    expect(JSON.stringify(model.requests[1].messages)).toContain("first");
  });

  it("tests a permission flow without a server: the question, the refusal, what the model was told", async () => {
    // The README's sample (section 9), as a test.
    const model = scriptedModel();
    model.enqueue(
      reply.toolCalls([
        { name: "Write", input: { file_path: join(process.cwd(), "notes.md"), content: "hi" } },
      ]),
      reply.text("I left the file alone."),
    );
    const asked: string[] = [];
    const q = query({
      prompt: "Write a note",
      options: {
        model: model.id,
        provider: model,
        tools: ["Read", "Write"],
        persistSession: false,
        canUseTool: async (tool) => {
          asked.push(tool);
          return { behavior: "deny", message: "not now" };
        },
      },
    });
    expect(resultOf(await collect(q))).toMatchObject({
      subtype: "success",
      result: "I left the file alone.",
    });
    expect(asked).toEqual(["Write"]);
    expect(existsSync(join(process.cwd(), "notes.md"))).toBe(false);
    expect(JSON.stringify(model.requests[1].messages.at(-1))).toMatch(/not now/);
  });

  it("turns reply.error(status) into the typed error an HTTP provider throws, retried by its kind", async () => {
    const model = scriptedModel();
    model.enqueue(reply.error(529), reply.text("after the retry"));
    const messages = await collect(query({ prompt: "x", options: optionsFor(model) }));
    expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "after the retry" });

    const failing = scriptedModel();
    failing.enqueue(reply.error(401, { message: "bad key" }));
    const failed = resultOf(await collect(query({ prompt: "x", options: optionsFor(failing) })));
    expect(failed).toMatchObject({ is_error: true });
    expect(JSON.stringify(failed)).toContain("bad key");
    expect(failing.requests).toHaveLength(1); // authentication is not retried
  });

  it("throws a ProviderError step as is, and decides a step from the request when given a function", async () => {
    const model = scriptedModel();
    const thrown = new ProviderError({
      kind: "invalid_request",
      provider: "scripted",
      message: "no such tool",
    });
    expect(isProviderError(thrown)).toBe(true);
    model.enqueue((request) => reply.text(`saw ${request.messages.length} message(s)`));
    expect(resultOf(await collect(query({ prompt: "x", options: optionsFor(model) })))).toMatchObject({
      result: "saw 1 message(s)",
    });
    model.enqueue(thrown);
    const failed = resultOf(await collect(query({ prompt: "x", options: optionsFor(model) })));
    expect(JSON.stringify(failed)).toContain("no such tool");
  });

  it("fails a call the script did not plan for, saying so", async () => {
    const model = scriptedModel();
    const failed = resultOf(await collect(query({ prompt: "x", options: optionsFor(model) })));
    expect(failed).toMatchObject({ is_error: true });
    expect(JSON.stringify(failed)).toContain("more model calls than it scripted");
  });
});
