/**
 * The loop's basic cases (a text answer, tool calls, limits), end to end through the real providers and the mock HTTP server, for
 * both wire formats.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createModelCatalog } from "../../src/llm/catalog.js";
import { computeCost } from "../../src/llm/cost.js";
import { query } from "../../src/sdk/query.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { collect, echoTool, FORMATS, mockOptions, resultOf, toolResultsSent } from "./helpers.js";

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.requests.length = 0;
  expect(mock.pending()).toBe(0);
});

describe.each(FORMATS)("the loop over %s", (format) => {
  it("answers a text prompt with init, assistant and a success result", async () => {
    mock.enqueue(reply.text("Hello there", { usage: { input: 10, output: 3 } }));
    const messages = await collect(query({ prompt: "hi", options: mockOptions(mock, format) }));
    expect(messages.map((m) => m.type)).toEqual(["system", "assistant", "result"]);
    const init = messages[0] as any;
    expect(init.subtype).toBe("init");
    expect(init.session_id).toBe(resultOf(messages).session_id);
    const result = resultOf(messages);
    expect(result.subtype).toBe("success");
    expect(result.is_error).toBe(false);
    expect(result.result).toBe("Hello there");
    expect(result.num_turns).toBe(1);
    expect(result.exit_reason).toBe("end_turn");
    expect(result.usage.input_tokens).toBe(10);
    expect(result.usage.output_tokens).toBe(3);
  });

  it("runs a tool call and sends its result back before the final answer", async () => {
    mock.enqueue(
      reply.toolCalls([{ name: "echo", input: { text: "ping" }, id: "call_1" }]),
      reply.text("pong received"),
    );
    const messages = await collect(
      query({ prompt: "use echo", options: mockOptions(mock, format, { tools: [echoTool] }) }),
    );
    expect(resultOf(messages).result).toBe("pong received");
    expect(resultOf(messages).num_turns).toBe(2);
    const sent = toolResultsSent(mock.requests[1].body);
    expect(sent).toEqual([{ id: "call_1", content: "echo: ping", isError: false }]);
    const user = messages.find((m) => m.type === "user") as any;
    expect(user.message.content[0].tool_use_id).toBe("call_1");
    expect(user.tool_use_result).toEqual({ length: 4 });
  });

  it("runs several tool calls of one answer and returns results in the model's order", async () => {
    mock.enqueue(
      reply.toolCalls([
        { name: "echo", input: { text: "a" }, id: "c1" },
        { name: "echo", input: { text: "b" }, id: "c2" },
        { name: "echo", input: { text: "c" }, id: "c3" },
      ]),
      reply.text("done"),
    );
    await collect(query({ prompt: "x", options: mockOptions(mock, format, { tools: [echoTool] }) }));
    expect(toolResultsSent(mock.requests[1].body).map((r) => [r.id, r.content])).toEqual([
      ["c1", "echo: a"],
      ["c2", "echo: b"],
      ["c3", "echo: c"],
    ]);
  });

  it("sends a thrown tool error back as an is_error result and goes on", async () => {
    const failing = defineTool({
      name: "fail",
      description: "always fails",
      inputSchema: z.object({}),
      execute: async () => {
        throw new Error("disk on fire");
      },
    });
    mock.enqueue(reply.toolCalls([{ name: "fail", input: {}, id: "f1" }]), reply.text("I see it failed"));
    const messages = await collect(
      query({ prompt: "x", options: mockOptions(mock, format, { tools: [failing] }) }),
    );
    expect(resultOf(messages).subtype).toBe("success");
    const body = mock.requests[1].body;
    if (format === "anthropic") {
      const sent = toolResultsSent(body)[0];
      expect(sent.isError).toBe(true);
      expect(sent.content).toContain("disk on fire");
    } else {
      expect(JSON.stringify(body.messages)).toContain("disk on fire");
    }
  });

  it("answers an unknown tool with an error that lists the tools that exist", async () => {
    mock.enqueue(reply.toolCalls([{ name: "nope", input: {}, id: "u1" }]), reply.text("ok"));
    await collect(query({ prompt: "x", options: mockOptions(mock, format, { tools: [echoTool] }) }));
    const sent = JSON.stringify(mock.requests[1].body.messages);
    expect(sent).toContain('Unknown tool \\"nope\\"');
    expect(sent).toContain("Available tools: echo");
  });

  it("answers schema-invalid input with an error naming the field, without running the tool", async () => {
    mock.enqueue(reply.toolCalls([{ name: "echo", input: { text: 42 }, id: "v1" }]), reply.text("ok"));
    const messages = await collect(
      query({ prompt: "x", options: mockOptions(mock, format, { tools: [echoTool] }) }),
    );
    const sent = JSON.stringify(mock.requests[1].body.messages);
    expect(sent).toContain("text:");
    expect(sent).toContain("InputValidationError");
    expect(messages.some((m) => m.type === "tool_progress")).toBe(false);
  });

  it("answers arguments that are not JSON with an explicit error and keeps the session going", async () => {
    mock.enqueue(
      reply.toolCalls([{ name: "echo", rawArguments: '{"text": "unterminated', id: "j1" }]),
      reply.text("fixed"),
    );
    const messages = await collect(
      query({ prompt: "x", options: mockOptions(mock, format, { tools: [echoTool] }) }),
    );
    expect(resultOf(messages).result).toBe("fixed");
    expect(JSON.stringify(mock.requests[1].body.messages)).toContain("not valid JSON");
  });

  it("treats stop_reason tool_use without tool calls as end_turn", async () => {
    mock.enqueue(reply.text("nothing to run", { stopReason: "tool_use", openaiFinishReason: "tool_calls" }));
    const messages = await collect(query({ prompt: "x", options: mockOptions(mock, format) }));
    expect(resultOf(messages).subtype).toBe("success");
    expect(mock.requests).toHaveLength(1);
  });

  it("stops after exactly maxTurns model calls with error_max_turns", async () => {
    for (let i = 0; i < 3; i++) mock.enqueue(reply.toolCalls([{ name: "echo", input: { text: `${i}` } }]));
    const messages = await collect(
      query({ prompt: "loop", options: mockOptions(mock, format, { tools: [echoTool], maxTurns: 3 }) }),
    );
    const result = resultOf(messages);
    expect(result.subtype).toBe("error_max_turns");
    expect(result.is_error).toBe(true);
    expect(result.num_turns).toBe(3);
    expect(mock.requests).toHaveLength(3);
    // The third answer's tool call still got its result: the transcript stays valid.
    expect(messages.filter((m) => m.type === "user")).toHaveLength(3);
  });

  it("tracks cost across turns and stops at maxBudgetUsd", async () => {
    const options = mockOptions(mock, format, { tools: [echoTool] });
    const usage = {
      input_tokens: 1000,
      output_tokens: 100_000,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    };
    const perCall = computeCost(usage, createModelCatalog().get(options.model!)).costUsd;
    expect(perCall).toBeGreaterThan(0);
    for (let i = 0; i < 2; i++) {
      mock.enqueue(
        reply.toolCalls([{ name: "echo", input: { text: "x" } }], {
          usage: { input: 1000, output: 100_000 },
        }),
      );
    }
    const messages = await collect(
      query({ prompt: "spend", options: { ...options, maxBudgetUsd: perCall * 1.5 } }),
    );
    const result = resultOf(messages);
    expect(result.subtype).toBe("error_max_budget_usd");
    expect(result.total_cost_usd).toBeCloseTo(perCall * 2, 10);
    expect(result.num_turns).toBe(2);
    const model = Object.keys(result.modelUsage)[0];
    expect(result.modelUsage[model].outputTokens).toBe(200_000);
    expect(result.modelUsage[model].costUSD).toBeCloseTo(result.total_cost_usd, 10);
    expect(result.modelUsage[model].contextWindow).toBeGreaterThan(100_000);
    expect(result.modelUsage[model].maxOutputTokens).toBeGreaterThan(1000);
  });

  it("does not start a call whose input alone would pass the budget", async () => {
    const messages = await collect(
      query({
        prompt: "x".repeat(40_000),
        options: mockOptions(mock, format, { maxBudgetUsd: 0.0001 }),
      }),
    );
    expect(resultOf(messages).subtype).toBe("error_max_budget_usd");
    expect(mock.requests).toHaveLength(0);
  });

  it("emits stream events, then the assistant message, in order, with includePartialMessages", async () => {
    mock.enqueue(reply.text("streamed words here", { chunkSize: 4 }));
    const messages = await collect(
      query({ prompt: "x", options: mockOptions(mock, format, { includePartialMessages: true }) }),
    );
    const types = messages.map((m) => m.type);
    expect(types[0]).toBe("system");
    expect(types.at(-1)).toBe("result");
    const firstAssistant = types.indexOf("assistant");
    const lastStream = types.lastIndexOf("stream_event");
    expect(lastStream).toBeLessThan(firstAssistant);
    const deltas = messages
      .filter((m): m is any => m.type === "stream_event" && (m as any).event.type === "content_block_delta")
      .map((m) => m.event.delta.text)
      .join("");
    expect(deltas).toBe("streamed words here");
    expect(messages.filter((m) => m.type === "stream_event").length).toBeGreaterThan(4);
  });

  it("keeps message order: init, assistant, tool progress, tool result, assistant, result", async () => {
    mock.enqueue(reply.toolCalls([{ name: "echo", input: { text: "o" } }]), reply.text("end"));
    const messages = await collect(
      query({ prompt: "x", options: mockOptions(mock, format, { tools: [echoTool] }) }),
    );
    expect(messages.map((m) => m.type)).toEqual([
      "system",
      "assistant",
      "tool_progress",
      "user",
      "assistant",
      "result",
    ]);
  });

  it("ends a run that hits a provider error with error_during_execution and the provider's message", async () => {
    mock.enqueue(reply.error(401, { message: "invalid x-api-key" }));
    const messages = await collect(query({ prompt: "x", options: mockOptions(mock, format) }));
    const result = resultOf(messages) as any;
    expect(result.subtype).toBe("error_during_execution");
    expect(result.exit_reason).toBe("error");
    expect(result.errors.join(" ")).toContain("invalid x-api-key");
    // The provider, the kind and the status each said once (it read "anthropic authentication (401):
    // anthropic API error 401 (authentication_error): …").
    const provider = format === "anthropic" ? "anthropic" : "openai";
    expect(result.errors[0]).toMatch(
      new RegExp(`^${provider} authentication \\(401(, [a-z_]+)?\\): invalid x-api-key`),
    );
    expect(result.errors[0]).not.toContain("API error");
    const assistant = messages.find((m) => m.type === "assistant") as any;
    expect(assistant.error).toBe("authentication_failed");
  });

  it("retries a 529 and reports the retry as system/api_retry", async () => {
    mock.enqueue(reply.error(529), reply.text("after retry"));
    const messages = await collect(query({ prompt: "x", options: mockOptions(mock, format) }));
    expect(resultOf(messages).result).toBe("after retry");
    const retry = messages.find((m) => m.type === "system" && (m as any).subtype === "api_retry") as any;
    expect(retry.attempt).toBe(1);
    expect(retry.error_status).toBe(529);
  });

  it("uses the fallback model when the primary stays overloaded", async () => {
    mock.enqueue(reply.error(529), reply.error(529), (req) => reply.text(`answered by ${req.body.model}`));
    const fallback = format === "anthropic" ? "anthropic/claude-haiku-4-5" : "openai/gpt-4.1-mini";
    const messages = await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, format, {
          fallbackModel: fallback,
          retry: { maxRetries: 1, baseDelayMs: 1 },
        }),
      }),
    );
    expect(resultOf(messages).result).toBe(`answered by ${fallback.split("/")[1]}`);
  });
});
