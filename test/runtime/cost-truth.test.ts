/**
 * Cost is told truly: the fallback model's answer is billed at its own price; a model with no price
 * is reported once (and can be priced with `modelPricing`); a budget that could never fire is refused;
 * the answer that crosses the budget does not run its tools; and each run's cost is kept in the
 * transcript, so a resumed session reports its whole cost beside the run's.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isGoatError } from "../../src/errors.js";
import { query, type SDKUserMessageInput } from "../../src/sdk/query.js";
import type { SDKMessage, SDKResultMessage } from "../../src/sdk/sdk-messages.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { reply } from "../support/mock-provider.js";
import { collect, mockOptions, resultOf, useMockProvider } from "./helpers.js";

const mock = useMockProvider();

const warnings = (messages: SDKMessage[]) =>
  messages.flatMap((m) => (m.type === "system" && m.subtype === "informational" ? [m.content] : []));

describe("cost truth", () => {
  it("bills the fallback model's answer at the fallback's price, under its name", async () => {
    mock.enqueue(reply.error(529), reply.text("from haiku", { usage: { input: 1000, output: 1000 } }));
    const messages = await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", {
          model: "anthropic/claude-opus-4-1", // $15 / $75 per million
          fallbackModel: "anthropic/claude-haiku-4-5", // $1 / $5 per million
          retry: { maxRetries: 0 },
        }),
      }),
    );
    const result = resultOf(messages);
    expect(result.result).toBe("from haiku");
    expect(result.total_cost_usd).toBeCloseTo((1000 * 1 + 1000 * 5) / 1e6, 12);
    expect(Object.keys(result.modelUsage)).toEqual(["anthropic/claude-haiku-4-5"]);
    expect(warnings(messages).join("\n")).toMatch(/fallback model anthropic\/claude-haiku-4-5 answers/);
  });

  it("counts the compaction summary's call in the run's cost and its usage", async () => {
    mock.enqueue(
      reply.text("earlier", { usage: { input: 100, output: 10 } }),
      reply.overflow(),
      reply.text("<summary>we talked</summary>", { usage: { input: 3000, output: 500 } }),
      reply.text("fits", { usage: { input: 1000, output: 100 } }),
    );
    async function* input(): AsyncGenerator<SDKUserMessageInput> {
      yield { type: "user", message: { role: "user", content: "first" } };
      yield { type: "user", message: { role: "user", content: "second" } };
    }
    const messages = await collect(
      query({
        prompt: input(),
        options: mockOptions(mock, "anthropic", { model: "anthropic/claude-sonnet-4-5" }),
      }),
    );
    const results = messages.filter((m): m is SDKResultMessage => m.type === "result");
    expect(results.map((r) => (r as any).result)).toEqual(["earlier", "fits"]);
    const price = (input: number, output: number) => (input * 3 + output * 15) / 1e6; // $3 / $15 per million
    const second = results[1] as any;
    expect(second.run_cost_usd).toBeCloseTo(price(3000, 500) + price(1000, 100), 12);
    expect(second.total_cost_usd).toBeCloseTo(price(100, 10) + price(3000, 500) + price(1000, 100), 12);
    expect(second.modelUsage["anthropic/claude-sonnet-4-5"]).toMatchObject({
      inputTokens: 4100,
      outputTokens: 610,
    });
  });

  it("warns once about a model with no price, and prices it from modelPricing", async () => {
    const echo = defineTool({
      name: "echo",
      description: "echo",
      inputSchema: z.object({}),
      sideEffect: "none",
      execute: () => ({ content: "ok" }),
    });
    const script = () =>
      mock.enqueue(
        reply.toolCalls([{ name: "echo", input: {} }], { usage: { input: 1_000_000, output: 0 } }),
        reply.text("done", { usage: { input: 1_000_000, output: 500_000 } }),
      );
    script();
    const unpriced = await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "openai", { model: "openai/my-local-model", tools: [echo] }),
      }),
    );
    expect(resultOf(unpriced).total_cost_usd).toBe(0);
    const said = warnings(unpriced).filter((w) => w.includes("No price is known"));
    expect(said).toHaveLength(1); // two calls, one warning
    expect(said[0]).toMatch(/modelPricing: \{ "openai\/my-local-model": \{ input, output \} \}/);

    script();
    const priced = await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "openai", {
          model: "openai/my-local-model",
          tools: [echo],
          modelPricing: { "my-local-model": { input: 2, output: 4 } },
        }),
      }),
    );
    expect(resultOf(priced).total_cost_usd).toBeCloseTo(2 + 2 + 2, 10); // 2 M input at $2, 0.5 M output at $4
    expect(warnings(priced).some((w) => w.includes("No price"))).toBe(false);
  });

  it("refuses to start with a budget for a model that has no price, saying how to give one", () => {
    let thrown: unknown;
    try {
      query({
        prompt: "x",
        options: mockOptions(mock, "openai", { model: "openai/my-local-model", maxBudgetUsd: 1 }),
      });
    } catch (error) {
      thrown = error;
    }
    expect(isGoatError(thrown) && thrown.code).toBe("invalid_option");
    expect(String((thrown as Error).message)).toMatch(
      /maxBudgetUsd is set, but no price is known for the model "openai\/my-local-model".*modelPricing/,
    );
    expect(mock.requests).toHaveLength(0);
  });

  it("does not run the tools of the answer that crosses the budget, yet answers each call", async () => {
    let runs = 0;
    const spend = defineTool({
      name: "spend",
      description: "has effects",
      inputSchema: z.object({ n: z.number() }),
      execute: () => {
        runs++;
        return { content: "ran" };
      },
    });
    mock.enqueue(
      reply.toolCalls(
        [
          { name: "spend", input: { n: 1 } },
          { name: "spend", input: { n: 2 } },
        ],
        { usage: { input: 1000, output: 100_000 } }, // $1.503 on Sonnet
      ),
    );
    const messages = await collect(
      query({ prompt: "x", options: mockOptions(mock, "anthropic", { tools: [spend], maxBudgetUsd: 1 }) }),
    );
    const result = resultOf(messages) as SDKResultMessage;
    expect(result.subtype).toBe("error_max_budget_usd");
    expect(runs).toBe(0);
    expect(mock.requests).toHaveLength(1);
    const toolResults = messages.flatMap((m) =>
      m.type === "user" && Array.isArray(m.message.content)
        ? m.message.content.filter((b) => b.type === "tool_result")
        : [],
    );
    expect(toolResults).toHaveLength(2);
    for (const r of toolResults) {
      expect(r).toMatchObject({ is_error: true });
      expect(String(r.content)).toMatch(/^Budget exhausted: not run/);
    }
  });

  it("keeps each run's cost in the transcript: a resumed session reports its total and the run's", async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "goat-cost-"));
    try {
      const options = mockOptions(mock, "anthropic", {
        persistSession: true,
        env: { ...process.env, GOAT_HOME: home },
        cwd: home,
      });
      const perCall = (1000 * 3 + 100 * 15) / 1e6; // Sonnet, 1000 in / 100 out
      const usage = { usage: { input: 1000, output: 100 } };
      // First process: two runs in one query (multi-turn).
      mock.enqueue(reply.text("one", usage), reply.text("two", usage));
      const first = query({
        prompt: (async function* () {
          yield { type: "user" as const, message: { role: "user" as const, content: "a" } };
          yield { type: "user" as const, message: { role: "user" as const, content: "b" } };
        })(),
        options,
      });
      const firstResults = (await collect(first)).filter((m): m is SDKResultMessage => m.type === "result");
      expect(firstResults.map((r) => r.run_cost_usd)).toEqual(
        [perCall, perCall].map((c) => expect.closeTo(c, 12)),
      );
      expect(firstResults[1].session_total_cost_usd).toBeCloseTo(2 * perCall, 12);

      // A later process resumes it.
      mock.enqueue(reply.text("three", usage));
      const resumed = resultOf(
        await collect(query({ prompt: "c", options: { ...options, resume: first.sessionId } })),
      );
      expect(resumed.run_cost_usd).toBeCloseTo(perCall, 12);
      expect(resumed.total_cost_usd).toBeCloseTo(perCall, 12);
      expect(resumed.session_total_cost_usd).toBeCloseTo(3 * perCall, 12);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
