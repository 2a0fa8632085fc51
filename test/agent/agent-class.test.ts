/**
 * `Agent` as a host program uses it: a prompt cancelled through its own AbortSignal (while running, or
 * before its turn), listeners with bugs that must not take the session down, and `await using`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/sdk/agent.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { mockOptions } from "./helpers.js";

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

/** Resolves when the mock has received `count` requests. */
async function requestsReach(count: number): Promise<void> {
  while (mock.requests.length < count) await new Promise((r) => setTimeout(r, 5));
}

describe("Agent.prompt with an AbortSignal", () => {
  it("interrupts the running prompt, rejects with the signal's reason, and keeps the session usable", async () => {
    // A slow answer: 40 events 50 ms apart, so the abort lands mid-stream.
    mock.enqueue(reply.text("x".repeat(320), { delayMs: 50 }), reply.text("after"));
    const agent = new Agent(mockOptions(mock, "anthropic"));
    const controller = new AbortController();
    const running = agent.prompt("slow one", { signal: controller.signal });
    await requestsReach(1);
    controller.abort(new Error("user gave up"));
    await expect(running).rejects.toThrow("user gave up");
    const next = await agent.prompt("next");
    expect(next.result).toBe("after");
    expect(mock.requests).toHaveLength(2);
    await agent.close();
  });

  it("never sends a prompt whose signal aborted while it waited its turn", async () => {
    mock.enqueue(reply.text("first", { delayMs: 20 }), reply.text("third"));
    const agent = new Agent(mockOptions(mock, "anthropic"));
    const controller = new AbortController();
    const first = agent.prompt("first");
    const second = agent.prompt("second (cancelled)", { signal: controller.signal });
    const third = agent.prompt("third");
    controller.abort();
    await expect(second).rejects.toMatchObject({ name: "AbortError" });
    expect((await first).result).toBe("first");
    expect((await third).result).toBe("third");
    expect(mock.requests).toHaveLength(2);
    expect(JSON.stringify(mock.requests.map((r) => r.body.messages))).not.toContain("cancelled");
    await agent.close();
  });

  it("rejects at once, sending nothing, when the signal is already aborted", async () => {
    const agent = new Agent(mockOptions(mock, "anthropic"));
    await expect(agent.prompt("never", { signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: "AbortError",
    });
    expect(mock.requests).toHaveLength(0);
    await agent.close();
  });
});

describe("Agent listeners", () => {
  it("a listener that throws is reported as a warning and the session goes on", async () => {
    mock.enqueue(reply.text("one"), reply.text("two"));
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on("warning", onWarning);
    try {
      const agent = new Agent(mockOptions(mock, "anthropic"));
      const seen: string[] = [];
      agent.subscribe(() => {
        throw new Error("event listener bug");
      });
      agent.subscribe((event) => seen.push(event.type));
      agent.onMessage(() => {
        throw new Error("message listener bug");
      });
      expect((await agent.prompt("first")).result).toBe("one");
      expect((await agent.prompt("second")).result).toBe("two");
      expect(seen.filter((type) => type === "agent_end")).toHaveLength(2);
      await agent.close();
      await new Promise((r) => setImmediate(r));
      expect(warnings.some((w) => w.includes("event listener bug"))).toBe(true);
      expect(warnings.some((w) => w.includes("message listener bug"))).toBe(true);
    } finally {
      process.off("warning", onWarning);
    }
  });
});

describe("Agent disposal", () => {
  it("Symbol.asyncDispose closes the session", async () => {
    mock.enqueue(reply.text("done"));
    const agent = new Agent(mockOptions(mock, "anthropic"));
    await agent.prompt("hi");
    await agent[Symbol.asyncDispose]();
    expect(agent.state.observe().phase).toBe("done");
    await expect(agent.prompt("late")).rejects.toThrow(/closed/);
  });
});
