import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openaiRequestBody } from "../../src/llm/openai-request.js";
import { createAsyncQueue } from "../../src/sdk/async-queue.js";
import { InvalidOptionError } from "../../src/sdk/options-check.js";
import { query, type SDKUserMessageInput } from "../../src/sdk/query.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { collect, echoTool, mockOptions, resultOf } from "./helpers.js";

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.requests.length = 0;
});

async function bodyFor(format: "anthropic" | "openai", options: Record<string, unknown>) {
  mock.enqueue(reply.text("ok"));
  const messages = await collect(query({ prompt: "x", options: mockOptions(mock, format, options as any) }));
  expect(resultOf(messages).subtype).toBe("success");
  const warnings = messages
    .filter((m) => m.type === "system" && (m as any).subtype === "informational")
    .map((m: any) => m.content);
  return { body: mock.requests[0].body, warnings };
}

describe("thinking and effort on the Anthropic wire", () => {
  it("a fixed budget is sent as thinking.budget_tokens", async () => {
    const { body } = await bodyFor("anthropic", { thinking: { type: "enabled", budgetTokens: 2048 } });
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(body.output_config).toBeUndefined();
  });

  it("adaptive thinking and effort reach a model Goat does not know as given", async () => {
    const { body, warnings } = await bodyFor("anthropic", {
      model: "anthropic/claude-opus-9",
      // Priced, so the only warning that could come is about thinking or effort.
      modelPricing: { "anthropic/claude-opus-9": { input: 15, output: 75 } },
      thinking: { type: "adaptive", display: "summarized" },
      effort: "max",
    });
    expect(body.thinking).toEqual({ type: "adaptive", display: "summarized" });
    expect(body.output_config).toEqual({ effort: "max" });
    expect(warnings).toEqual([]);
  });

  it("a known model without effort gets none, and the user is told once", async () => {
    const { body, warnings } = await bodyFor("anthropic", {
      model: "anthropic/claude-sonnet-4-5",
      effort: "high",
    });
    expect(body.output_config).toBeUndefined();
    expect(warnings).toEqual([
      'anthropic/claude-sonnet-4-5 takes no effort level: effort "high" is not sent to it.',
    ]);
  });

  it("a model registered with effort levels gets the nearest level it takes", async () => {
    const { body } = await bodyFor("anthropic", {
      model: "anthropic/claude-house",
      models: [
        {
          id: "claude-house",
          provider: "anthropic",
          contextWindow: 200_000,
          maxOutputTokens: 64_000,
          pricing: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
          reasoning: true,
          effortLevels: ["low", "medium", "high"],
          adaptiveThinking: true,
        },
      ],
      thinking: { type: "adaptive" },
      effort: "max",
    });
    expect(body.output_config).toEqual({ effort: "high" });
    expect(body.thinking).toEqual({ type: "adaptive" });
  });

  it("adaptive thinking on a Claude model without it becomes a fixed budget within max_tokens", async () => {
    const { body } = await bodyFor("anthropic", {
      model: "anthropic/claude-sonnet-4-5",
      maxTokens: 20_000,
      thinking: { type: "adaptive" },
    });
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 10_000 });
    expect(body.max_tokens).toBe(20_000);
  });

  it('{ type: "disabled" } is sent as Anthropic defines it', async () => {
    const { body } = await bodyFor("anthropic", { thinking: { type: "disabled" } });
    expect(body.thinking).toEqual({ type: "disabled" });
  });

  it("maxThinkingTokens stays as the deprecated alias; thinking wins over it", async () => {
    expect((await bodyFor("anthropic", { maxThinkingTokens: 4096 })).body.thinking).toEqual({
      type: "enabled",
      budget_tokens: 4096,
    });
    mock.requests.length = 0;
    const both = await bodyFor("anthropic", { maxThinkingTokens: 4096, thinking: { type: "disabled" } });
    expect(both.body.thinking).toEqual({ type: "disabled" });
  });

  it("setMaxThinkingTokens changes the next call's budget; null turns thinking off", async () => {
    mock.enqueue(reply.text("one"), reply.text("two"), reply.text("three"));
    const input = createAsyncQueue<SDKUserMessageInput>();
    const q = query({
      prompt: input,
      options: mockOptions(mock, "anthropic", { thinking: { type: "enabled", budgetTokens: 1024 } }),
    });
    const next = (content: string) => input.push({ type: "user", message: { role: "user", content } });
    next("1");
    let results = 0;
    for await (const m of q) {
      if (m.type !== "result") continue;
      results++;
      if (results === 1) {
        await q.setMaxThinkingTokens(3000);
        next("2");
      } else if (results === 2) {
        await q.setMaxThinkingTokens(null);
        next("3");
      } else input.close();
    }
    expect(mock.requests.map((r) => r.body.thinking)).toEqual([
      { type: "enabled", budget_tokens: 1024 },
      { type: "enabled", budget_tokens: 3000 },
      undefined,
    ]);
  });

  it("setMaxThinkingTokens' display: left out keeps the session's, a value replaces it, null clears it; highlights is refused and the budget still applies", async () => {
    mock.enqueue(reply.text("1"), reply.text("2"), reply.text("3"), reply.text("4"), reply.text("5"));
    const input = createAsyncQueue<SDKUserMessageInput>();
    const q = query({
      prompt: input,
      options: mockOptions(mock, "anthropic", {
        thinking: { type: "enabled", budgetTokens: 1024, display: "summarized" },
      }),
    });
    const next = (content: string) => input.push({ type: "user", message: { role: "user", content } });
    next("1");
    let results = 0;
    const refusals: unknown[] = [];
    for await (const m of q) {
      if (m.type !== "result") continue;
      results++;
      if (results === 1) await q.setMaxThinkingTokens(2000);
      else if (results === 2) await q.setMaxThinkingTokens(3000, "omitted");
      else if (results === 3) await q.setMaxThinkingTokens(4000, "highlights").catch((e) => refusals.push(e));
      else if (results === 4) await q.setMaxThinkingTokens(5000, null);
      if (results === 5) input.close();
      else next(String(results + 1));
    }
    expect(mock.requests.map((r) => r.body.thinking)).toEqual([
      { type: "enabled", budget_tokens: 1024, display: "summarized" },
      { type: "enabled", budget_tokens: 2000, display: "summarized" },
      { type: "enabled", budget_tokens: 3000, display: "omitted" },
      { type: "enabled", budget_tokens: 4000, display: "omitted" },
      { type: "enabled", budget_tokens: 5000 },
    ]);
    expect(refusals).toHaveLength(1);
    expect(String(refusals[0])).toContain("highlights");
    await expect(q.setMaxThinkingTokens(1, "loud" as never)).rejects.toThrow(/thinkingDisplay must be/);
  });

  it("thinking blocks go back with their signatures on the next call", async () => {
    mock.enqueue(
      reply.message([
        { type: "thinking", thinking: "Echo first.", signature: "sig-anthropic-1" },
        { type: "tool_use", name: "echo", input: { text: "a" }, id: "e1" },
      ]),
      reply.text("done"),
    );
    await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", {
          tools: [echoTool],
          thinking: { type: "enabled", budgetTokens: 2048 },
        }),
      }),
    );
    const assistant = mock.requests[1].body.messages[1];
    expect(assistant.content[0]).toEqual({
      type: "thinking",
      thinking: "Echo first.",
      signature: "sig-anthropic-1",
    });
  });
});

describe("thinking and effort on the OpenAI-compatible wire", () => {
  it("a gateway gets reasoning_effort and the thinking setting in the form LiteLLM documents", async () => {
    const { body } = await bodyFor("openai", {
      model: "openai/house-model",
      thinking: { type: "enabled", budgetTokens: 4096 },
      effort: "high",
    });
    expect(body.reasoning_effort).toBe("high");
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 4096 });
  });

  it("a known OpenAI reasoning model gets its nearest effort; a model that does not reason gets none", async () => {
    expect((await bodyFor("openai", { model: "openai/o3", effort: "max" })).body.reasoning_effort).toBe(
      "high",
    );
    mock.requests.length = 0;
    const plain = await bodyFor("openai", {
      model: "openai/gpt-4.1",
      effort: "low",
      thinking: { type: "adaptive" },
    });
    expect(plain.body.reasoning_effort).toBeUndefined();
    expect(plain.body.thinking).toBeUndefined();
    expect(plain.warnings).toEqual([
      "openai/gpt-4.1 does not think: the thinking setting is not sent to it.",
      'openai/gpt-4.1 takes no effort level: effort "low" is not sent to it.',
    ]);
  });

  it("OpenAI's own API gets only reasoning_effort: a fixed budget becomes the nearest effort", () => {
    const base = { model: "o3", messages: [{ role: "user" as const, content: "x" }] };
    const fromBudget = openaiRequestBody(
      { ...base, thinking: { type: "enabled", budgetTokens: 10_000 } },
      true,
    );
    expect(fromBudget.reasoning_effort).toBe("high");
    expect(fromBudget.thinking).toBeUndefined();
    expect(openaiRequestBody({ ...base, thinkingBudget: 1024 }, true).reasoning_effort).toBe("low");
    expect(openaiRequestBody({ ...base, effort: "max" }, true).reasoning_effort).toBe("xhigh");
    expect(
      openaiRequestBody({ ...base, thinking: { type: "adaptive" } }, true).reasoning_effort,
    ).toBeUndefined();
  });

  it("LiteLLM's signed thinking_blocks are kept and sent back with the tool call they preceded", async () => {
    mock.enqueue(
      reply.message(
        [
          { type: "thinking", thinking: "Echo first.", signature: "sig-litellm-1" },
          { type: "tool_use", name: "echo", input: { text: "a" }, id: "e1" },
        ],
        { litellmThinkingBlocks: true },
      ),
      reply.text("done"),
    );
    await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "openai", {
          model: "openai/claude-via-litellm",
          tools: [echoTool],
          thinking: { type: "enabled", budgetTokens: 2048 },
        }),
      }),
    );
    const assistant = mock.requests[1].body.messages.find((m: any) => m.role === "assistant");
    expect(assistant.thinking_blocks).toEqual([
      { type: "thinking", thinking: "Echo first.", signature: "sig-litellm-1" },
    ]);
  });
});

describe("thinking and effort options are checked", () => {
  it.each([
    [{ thinking: { type: "enabled", budgetTokens: 100 } }, /budgetTokens to be a whole number ≥ 1024/],
    [
      { thinking: { type: "enabled", budgetTokens: 8000 }, maxTokens: 4000 },
      /budgetTokens below maxTokens \(4000\)/,
    ],
    [{ thinking: { type: "sometimes" } }, /type "enabled", "adaptive" or "disabled"/],
    [{ effort: "ultra" }, /Option "effort" expects one of "low", "medium", "high", "xhigh", "max"/],
  ])("%j", (options, message) => {
    expect(() => query({ prompt: "x", options: mockOptions(mock, "anthropic", options as any) })).toThrow(
      InvalidOptionError,
    );
    expect(() => query({ prompt: "x", options: mockOptions(mock, "anthropic", options as any) })).toThrow(
      message,
    );
  });
});
