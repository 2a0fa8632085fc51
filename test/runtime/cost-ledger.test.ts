/**
 * One cost ledger: each model answer's cost is written on its transcript entry with the same pricing
 * the run's totals use, so the result message, the transcript, the session listing and a resumed
 * session's totals all agree.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../../src/sdk/query.js";
import type { SDKResultMessage } from "../../src/sdk/sdk-messages.js";
import { listSessions } from "../../src/session/api.js";
import { createJsonlSessionStore } from "../../src/session/jsonl-store.js";
import type { AssistantEntry } from "../../src/session/types.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { collect, echoTool, FORMATS, mockOptions, tempDir } from "./helpers.js";

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(async () => {
  await mock.close();
});

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe.each(FORMATS)("the cost ledger over %s", (format) => {
  it("prices each answer on its entry; result, transcript, listing and resume agree", async () => {
    const home = tempDir("goat-ledger-");
    const cwd = tempDir("goat-ledger-cwd-");
    const store = createJsonlSessionStore({ home });
    mock.enqueue(
      reply.toolCalls([{ name: "echo", input: { text: "a" } }], { usage: { input: 1200, output: 80 } }),
      reply.text("first run done", { usage: { input: 1500, output: 40, cacheRead: 1000 } }),
    );
    const first = (
      await collect(
        query({
          prompt: "go",
          options: mockOptions(mock, format, {
            cwd,
            tools: [echoTool],
            persistSession: true,
            sessionStore: store,
          }),
        }),
      )
    ).at(-1) as SDKResultMessage;
    expect(first.subtype).toBe("success");
    expect(first.total_cost_usd).toBeGreaterThan(0);

    const entries = (await store.load(first.session_id))!;
    const priced = entries.filter((e): e is AssistantEntry => e.type === "assistant");
    expect(priced).toHaveLength(2);
    for (const e of priced) expect(e.cost_usd).toBeGreaterThan(0);
    expect(sum(priced.map((e) => e.cost_usd!))).toBeCloseTo(first.run_cost_usd, 12);
    expect(first.session_total_cost_usd).toBeCloseTo(first.run_cost_usd, 12);

    mock.enqueue(reply.text("second run done", { usage: { input: 2000, output: 10 } }));
    const second = (
      await collect(
        query({
          prompt: "again",
          options: mockOptions(mock, format, {
            cwd,
            resume: first.session_id,
            persistSession: true,
            sessionStore: store,
          }),
        }),
      )
    ).at(-1) as SDKResultMessage;
    expect(second.session_total_cost_usd).toBeCloseTo(first.run_cost_usd + second.run_cost_usd, 12);

    const all = (await store.load(first.session_id))!;
    const callCosts = sum(
      all.filter((e): e is AssistantEntry => e.type === "assistant").map((e) => e.cost_usd ?? 0),
    );
    expect(callCosts).toBeCloseTo(second.session_total_cost_usd, 12);
    const [listed] = await listSessions({ store, cwd });
    expect(listed.totalCostUsd).toBeCloseTo(second.session_total_cost_usd, 12);
    await store.close();
  });
});
