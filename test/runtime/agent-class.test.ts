/**
 * `Agent` as a host program uses it: a prompt cancelled through its own AbortSignal (while running, or
 * before its turn), `continue()` after a run that stopped short, listeners with bugs that must not take
 * the session down (reported to `onListenerError` or once as a warning), and `await using`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GoatError } from "../../src/errors.js";
import { Agent } from "../../src/sdk/agent.js";
import { query } from "../../src/sdk/query.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { collect, echoTool, mockOptions } from "./helpers.js";

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

/** The last message of a request the mock received, as JSON text. */
const lastSent = (i: number) => JSON.stringify(mock.requests[i].body.messages.at(-1));

describe("Agent.continue", () => {
  it("runs the model again on a history that ends with tool results, adding no message", async () => {
    // maxTurns 1: the model calls a tool, the tool runs, and the run stops before the model sees it.
    mock.enqueue(reply.toolCalls([{ name: "echo", input: { text: "ping" } }]), reply.text("seen: ping"));
    const agent = new Agent(mockOptions(mock, "anthropic", { tools: [echoTool], maxTurns: 1 }));
    const first = await agent.prompt("echo ping");
    expect(first.subtype).toBe("error_max_turns");
    const resumed = await agent.continue();
    expect(resumed.subtype).toBe("success");
    expect(resumed.result).toBe("seen: ping");
    expect(mock.requests).toHaveLength(2);
    expect(lastSent(1)).toContain("tool_result");
    expect(mock.requests[1].body.messages).toHaveLength(3); // prompt, tool call, its result: nothing new
    await agent.close();
  });

  it("refuses with nothing_to_continue when the model has answered, and the session goes on", async () => {
    mock.enqueue(reply.text("answered"), reply.text("next answer"));
    const agent = new Agent(mockOptions(mock, "anthropic"));
    await expect(agent.continue()).rejects.toMatchObject({ code: "nothing_to_continue" });
    await agent.prompt("question");
    const refused = agent.continue();
    await expect(refused).rejects.toBeInstanceOf(GoatError);
    await expect(refused).rejects.toThrow(/Nothing to continue/);
    expect((await agent.prompt("another")).result).toBe("next answer");
    expect(mock.requests).toHaveLength(2);
    await agent.close();
  });

  it("a continue() whose signal aborted while it waited never runs", async () => {
    mock.enqueue(reply.text("slow", { delayMs: 20 }), reply.text("after"));
    const agent = new Agent(mockOptions(mock, "anthropic"));
    const controller = new AbortController();
    const running = agent.prompt("first");
    const waiting = agent.continue({ signal: controller.signal });
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: "AbortError" });
    expect((await running).result).toBe("slow");
    expect((await agent.prompt("next")).result).toBe("after");
    expect(mock.requests).toHaveLength(2);
    await agent.close();
  });
});

describe("onListenerError", () => {
  it("receives every error an Agent listener throws, and no process warning is emitted", async () => {
    mock.enqueue(reply.text("one"), reply.text("two"));
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on("warning", onWarning);
    try {
      const errors: unknown[] = [];
      const agent = new Agent(mockOptions(mock, "anthropic", { onListenerError: (e) => errors.push(e) }));
      agent.onMessage((m) => {
        if (m.type === "result") throw new Error(`bad listener on ${m.result}`);
      });
      await agent.prompt("a");
      await agent.prompt("b");
      await agent.close();
      await new Promise((r) => setImmediate(r));
      expect(errors.map((e) => (e as Error).message)).toEqual(["bad listener on one", "bad listener on two"]);
      expect(warnings.filter((w) => w.includes("bad listener"))).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("also receives what query()'s onEvent throws, while the run completes", async () => {
    mock.enqueue(reply.text("fine"));
    const errors: unknown[] = [];
    const messages = await collect(
      query({
        prompt: "hi",
        options: mockOptions(mock, "anthropic", {
          onEvent: (event) => {
            if (event.type === "agent_start") throw new Error("onEvent bug");
          },
          onListenerError: (e) => errors.push(e),
        }),
      }),
    );
    expect(messages.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "fine" });
    expect(errors.map((e) => (e as Error).message)).toEqual(["onEvent bug"]);
  });
});
