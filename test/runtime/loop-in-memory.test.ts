/**
 * The loop's branches driven in process by a scripted model in memory (`scriptedModel` of goat-agent/testing):
 * no HTTP and no clock. Tool calls wait on gates the test opens, streams hold at a known event, and
 * the one test about elapsed time runs on fake timers, so each case says what happened in which order
 * instead of how long it took. The wire formats are pinned by loop-basics (both providers over HTTP).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { ProviderError } from "../../src/llm/errors.js";
import type { Message, ModelRequest } from "../../src/llm/types.js";
import type { AgentPhase } from "../../src/loop/state.js";
import { hasToolCall, stepCountIs } from "../../src/loop/stop-conditions.js";
import type { QueryOptions } from "../../src/sdk/options.js";
import { query } from "../../src/sdk/query.js";
import type { SDKMessage } from "../../src/sdk/sdk-messages.js";
import { held, type ScriptedModel, scriptedModel } from "../../src/testing/scripted-model.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { reply } from "../support/mock-provider.js";
import { gatedTool, settle } from "./gated-tool.js";
import { collect, echoTool, resultOf } from "./helpers.js";

let model: ScriptedModel;
beforeEach(() => {
  model = scriptedModel();
});
afterEach(() => {
  expect(model.pending(), "scripted answers left unused").toBe(0);
});

/** Options that send the query's model calls to the scripted model. */
function options(extra: QueryOptions = {}): QueryOptions {
  return {
    model: model.id,
    provider: model,
    modelPricing: { [model.id]: { input: 3, output: 15 } },
    retry: { baseDelayMs: 1, maxDelayMs: 1 },
    persistSession: false,
    permissionMode: "bypassPermissions",
    tools: [],
    ...extra,
  };
}

/** The tool results a request sent the model (its last user message), in order. */
function toolResultsOf(request: ModelRequest): Array<{ id: string; content: string; isError: boolean }> {
  const last = request.messages.filter((m: Message) => m.role === "user").at(-1);
  if (!last || typeof last.content === "string") return [];
  return last.content.flatMap((b) =>
    b.type === "tool_result"
      ? [
          {
            id: b.tool_use_id,
            content: typeof b.content === "string" ? b.content : b.content.map((c: any) => c.text).join(""),
            isError: b.isError === true,
          },
        ]
      : [],
  );
}

const sent = (n: number) => JSON.stringify(model.requests[n].messages);

describe("tool rounds", () => {
  it("runs a tool call and sends its result back before the final answer", async () => {
    model.enqueue(reply.toolCalls([{ name: "echo", input: { text: "ping" }, id: "c1" }]), reply.text("pong"));
    const messages = await collect(query({ prompt: "x", options: options({ tools: [echoTool] }) }));
    expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "pong", num_turns: 2 });
    expect(toolResultsOf(model.requests[1])).toEqual([{ id: "c1", content: "echo: ping", isError: false }]);
  });

  it("answers a tool that throws, an unknown tool, bad input and arguments that are not JSON, and goes on", async () => {
    const failing = defineTool({
      name: "fail",
      description: "always fails",
      inputSchema: z.object({}),
      execute: async () => {
        throw new Error("disk on fire");
      },
    });
    model.enqueue(
      reply.toolCalls([
        { name: "fail", input: {}, id: "f1" },
        { name: "nope", input: {}, id: "u1" },
        { name: "echo", input: { text: 42 }, id: "v1" },
        { name: "echo", rawArguments: '{"text": "unterminated', id: "j1" },
        { name: "echo", input: { text: "fine" }, id: "e1" },
      ]),
      reply.text("went on"),
    );
    const messages = await collect(query({ prompt: "x", options: options({ tools: [echoTool, failing] }) }));
    expect(resultOf(messages).result).toBe("went on");
    const [thrown, unknown, invalid, notJson, fine] = toolResultsOf(model.requests[1]);
    expect(thrown).toMatchObject({ id: "f1", isError: true });
    expect(thrown.content).toContain("disk on fire");
    expect(unknown).toMatchObject({ id: "u1", isError: true });
    expect(unknown.content).toMatch(/Unknown tool "nope"[\s\S]*Available tools: echo, fail/);
    expect(invalid).toMatchObject({ id: "v1", isError: true });
    expect(invalid.content).toContain("InputValidationError");
    expect(notJson).toMatchObject({ id: "j1", isError: true });
    expect(notJson.content).toContain("not valid JSON");
    expect(fine).toEqual({ id: "e1", content: "echo: fine", isError: false });
  });

  it("answers a call whose handling throws, so the next request's history stays valid", async () => {
    // A schema whose transform throws makes validation itself throw, as a buggy extension would.
    const fragile = defineTool({
      name: "fragile",
      description: "throws while its input is parsed",
      inputSchema: z.object({ x: z.string() }).transform(() => {
        throw new Error("schema bug");
      }),
      sideEffect: "none",
      execute: async () => ({ content: "never" }),
    });
    model.enqueue(reply.toolCalls([{ name: "fragile", input: { x: "a" }, id: "h1" }]), reply.text("went on"));
    const messages = await collect(query({ prompt: "x", options: options({ tools: [fragile] }) }));
    expect(resultOf(messages).result).toBe("went on");
    const results = toolResultsOf(model.requests[1]);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ id: "h1", isError: true });
    expect(results[0].content).toContain("schema bug");
  });
});

describe("a failed tool result's spelling", () => {
  it("is isError in the history the model gets and is_error in the SDK's messages, either way in", async () => {
    model.enqueue(reply.toolCalls([{ name: "nope", input: {}, id: "u1" }]), reply.text("done"));
    // A Claude-SDK host hands back a tool result in the SDK's spelling (is_error).
    async function* prompt() {
      yield {
        type: "user" as const,
        message: {
          role: "user" as const,
          content: [
            { type: "tool_result" as const, tool_use_id: "old", content: "it broke", is_error: true },
          ],
        },
      };
    }
    const messages = await collect(query({ prompt: prompt(), options: options({ tools: [echoTool] }) }));
    expect(resultOf(messages).result).toBe("done");
    // Goat's history spells it isError: the host's result as read, and the loop's own for the unknown tool.
    expect(model.requests[0].messages[0].content).toEqual([
      { type: "tool_result", tool_use_id: "old", content: "it broke", isError: true },
    ]);
    expect(toolResultsOf(model.requests[1])).toMatchObject([{ id: "u1", isError: true }]);
    expect(JSON.stringify(model.requests[1].messages)).not.toContain("is_error");
    // The SDK's user messages keep Claude's spelling, for the host's result and the loop's alike.
    const sdkResults = messages.flatMap((m) => (m.type === "user" ? (m.message.content as any[]) : []));
    expect(sdkResults).toEqual([
      { type: "tool_result", tool_use_id: "old", content: "it broke", is_error: true },
      expect.objectContaining({ type: "tool_result", tool_use_id: "u1", is_error: true }),
    ]);
    expect(sdkResults[1]).not.toHaveProperty("isError");
  });
});

describe("tool scheduling", () => {
  it("runs read-only calls concurrently and holds a mutating call until they finish", async () => {
    const log: string[] = [];
    const read = gatedTool("slow_read", "none", { log });
    const write = gatedTool("slow_write", "mutating", { log });
    model.enqueue(
      reply.toolCalls([
        { name: "slow_read", input: { tag: "r1" } },
        { name: "slow_read", input: { tag: "r2" } },
        { name: "slow_write", input: { tag: "w1" } },
        { name: "slow_read", input: { tag: "r3" } },
      ]),
      reply.text("done"),
    );
    const run = collect(query({ prompt: "x", options: options({ tools: [read.tool, write.tool] }) }));
    // Both reads start before either ends: they overlap.
    await Promise.all([read.started("r1"), read.started("r2")]);
    read.finish("r1");
    await settle(); // a scheduler that started the write after one read would have done so by now
    read.finish("r2");
    await write.started("w1");
    await settle();
    write.finish("w1");
    await read.started("r3");
    read.finish("r3");
    await run;
    expect(log).toEqual([
      "start r1",
      "start r2",
      "end r1",
      "end r2",
      "start w1",
      "end w1",
      "start r3",
      "end r3",
    ]);
    // Results still come back in the model's order.
    expect(toolResultsOf(model.requests[1]).map((r) => r.content)).toEqual([
      "done r1",
      "done r2",
      "done w1",
      "done r3",
    ]);
  });

  it("respects the concurrency cap", async () => {
    const read = gatedTool("slow_read", "none");
    model.enqueue(
      reply.toolCalls(["a", "b", "c"].map((tag) => ({ name: "slow_read", input: { tag } }))),
      reply.text("done"),
    );
    const run = collect(query({ prompt: "x", options: options({ tools: [read.tool], toolConcurrency: 1 }) }));
    for (const tag of ["a", "b", "c"]) {
      await read.started(tag);
      await settle(); // room for a second call to start, which the cap forbids
      expect(read.running()).toEqual([tag]);
      read.finish(tag);
    }
    await run;
    expect(read.log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
  });
  it("with orderedToolStarts, starts calls in the model's order whatever their hooks' timing, and still runs side-effect-free ones together", async () => {
    const log: string[] = [];
    const read = gatedTool("slow_read", "none", { log });
    const write = gatedTool("slow_write", "mutating", { log });
    model.enqueue(
      reply.toolCalls([
        { name: "slow_read", input: { tag: "r1" } },
        { name: "slow_read", input: { tag: "r2" } },
        { name: "slow_write", input: { tag: "w1" } },
        { name: "slow_write", input: { tag: "w2" } },
      ]),
      reply.text("done"),
    );
    // r1's PreToolUse hook answers last: unordered, r2 would start first.
    let releaseR1 = () => {};
    const r1Hook = new Promise<void>((resolve) => (releaseR1 = resolve));
    const hook = async (input: unknown) => {
      if ((input as { tool_input: { tag: string } }).tool_input.tag === "r1") await r1Hook;
      return {};
    };
    const run = collect(
      query({
        prompt: "x",
        options: options({
          tools: [read.tool, write.tool],
          orderedToolStarts: true,
          hooks: { PreToolUse: [{ hooks: [hook] }] },
        }),
      }),
    );
    await settle();
    expect(log).toEqual([]);
    releaseR1();
    await Promise.all([read.started("r1"), read.started("r2")]);
    read.finish("r2");
    read.finish("r1");
    await write.started("w1");
    await settle();
    expect(write.running()).toEqual(["w1"]);
    write.finish("w1");
    await write.started("w2");
    write.finish("w2");
    await run;
    expect(log).toEqual([
      "start r1",
      "start r2",
      "end r2",
      "end r1",
      "start w1",
      "end w1",
      "start w2",
      "end w2",
    ]);
    expect(toolResultsOf(model.requests[1]).map((r) => r.content)).toEqual([
      "done r1",
      "done r2",
      "done w1",
      "done w2",
    ]);
  });
});

describe("tool progress", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("repeats tool_progress once a second while a silent tool runs", async () => {
    vi.useFakeTimers();
    const silent = defineTool({
      name: "silent",
      description: "Waits 2.3 s and prints nothing",
      inputSchema: z.object({}),
      sideEffect: "none",
      execute: async () => {
        await new Promise((resolve) => setTimeout(resolve, 2_300));
        return { content: "done" };
      },
    });
    model.enqueue(reply.toolCalls([{ name: "silent", input: {} }]), reply.text("done"));
    const run = collect(query({ prompt: "x", options: options({ tools: [silent] }) }));
    await vi.advanceTimersByTimeAsync(2_300);
    await vi.runAllTimersAsync();
    const messages = await run;
    const elapsed = messages
      .filter((m) => m.type === "tool_progress")
      .map((m: any) => m.elapsed_time_seconds);
    // At the start, then at each whole second the tool was still running (2.3 s: two beats).
    expect(elapsed).toEqual([0, 1, 2]);
    expect(resultOf(messages).result).toBe("done");
  });
});

describe("steering and follow-ups", () => {
  it("delivers a steering message at the turn boundary after the running batch", async () => {
    const slow = gatedTool("slow_read", "none");
    model.enqueue(
      reply.toolCalls([{ name: "slow_read", input: { tag: "s" } }]),
      reply.text("steered answer"),
    );
    const q = query({ prompt: "x", options: options({ tools: [slow.tool] }) });
    const messages: SDKMessage[] = [];
    let steered = false;
    for await (const m of q) {
      messages.push(m);
      if (m.type === "tool_progress" && !steered) {
        steered = true;
        q.steer("please also check the tests");
        slow.finish("s");
      }
    }
    expect(resultOf(messages).result).toBe("steered answer");
    expect(sent(1)).toContain("done s");
    expect(sent(1)).toContain("please also check the tests");
    // The message joined after the tool result, not in the middle of the batch.
    expect(sent(1).indexOf("please also check")).toBeGreaterThan(sent(1).indexOf("done s"));
  });

  it("with interrupt, skips calls not yet started with an explicit result", async () => {
    const write = gatedTool("slow_write", "mutating");
    model.enqueue(
      reply.toolCalls([
        { name: "slow_write", input: { tag: "first" }, id: "w1" },
        { name: "slow_write", input: { tag: "second" }, id: "w2" },
      ]),
      reply.text("ok"),
    );
    const q = query({ prompt: "x", options: options({ tools: [write.tool] }) });
    let steered = false;
    for await (const m of q) {
      if (m.type === "tool_progress" && m.tool_use_id === "w1" && !steered) {
        steered = true;
        q.steer("stop, do something else", { interrupt: true });
        write.finish("first");
      }
    }
    expect(write.log).toEqual(["start first", "end first"]);
    const [first, second] = toolResultsOf(model.requests[1]);
    expect(first).toMatchObject({ id: "w1", isError: false });
    expect(second).toMatchObject({ id: "w2", isError: true });
    expect(second.content).toMatch(/Skipped/);
    expect(sent(1)).toContain("stop, do something else");
  });

  it("re-enters the loop with follow-up messages on a normal end, and only then", async () => {
    let asked = 0;
    model.enqueue(reply.text("first"), reply.text("second"));
    const messages = await collect(
      query({
        prompt: "x",
        options: options({
          getFollowUpMessages: () => (asked++ === 0 ? [{ role: "user", content: "and now?" }] : []),
        }),
      }),
    );
    expect(resultOf(messages)).toMatchObject({ result: "second", num_turns: 2 });
    expect(sent(1)).toContain("and now?");
    expect(asked).toBe(2);
  });
});

describe("interrupt and abort", () => {
  it("interrupts a stream mid-answer and ends with error_during_execution", async () => {
    // The stream holds after its first delta and is never released: only the interrupt can end it.
    const answer = held(reply.text("a b c d e f g h i j k l m n o p", { chunkSize: 2 }), 3);
    model.enqueue(answer);
    const q = query({ prompt: "x", options: options({ includePartialMessages: true }) });
    const messages: SDKMessage[] = [];
    let interrupted = false;
    for await (const m of q) {
      messages.push(m);
      if (m.type === "stream_event" && (m as any).event.type === "content_block_delta" && !interrupted) {
        interrupted = true;
        await answer.held;
        void q.interrupt();
      }
    }
    const result = resultOf(messages);
    expect(result.subtype).toBe("error_during_execution");
    expect(result.is_error).toBe(true);
    expect(result.exit_reason).toBe("interrupted");
    expect(q.state.observe().phase).toBe("cancelled");
    expect(model.requests).toHaveLength(1);
  });

  it("interrupting during tools gives every tool_use a result and starts no further request", async () => {
    const slow = gatedTool("slow_read", "none");
    model.enqueue(
      reply.toolCalls([
        { name: "slow_read", input: { tag: "a" }, id: "t1" },
        { name: "slow_read", input: { tag: "b" }, id: "t2" },
      ]),
    );
    const q = query({ prompt: "x", options: options({ tools: [slow.tool] }) });
    const messages: SDKMessage[] = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === "tool_progress" && m.tool_use_id === "t2") void q.interrupt();
    }
    // Neither call was finished by the test: the interrupt ended them.
    expect(slow.log.sort()).toEqual(["end a", "end b", "start a", "start b"]);
    expect(model.requests).toHaveLength(1);
    const answered = messages
      .filter((m) => m.type === "user")
      .map((m: any) => m.message.content[0].tool_use_id);
    expect(answered.sort()).toEqual(["t1", "t2"]);
    expect(resultOf(messages).exit_reason).toBe("interrupted");
  });

  it("does not wait for a tool that ignores the interrupt", async () => {
    const stubborn = gatedTool("stubborn", "none", { ignoresAbort: true });
    model.enqueue(reply.toolCalls([{ name: "stubborn", input: { tag: "s" }, id: "s1" }]));
    const q = query({ prompt: "x", options: options({ tools: [stubborn.tool] }) });
    const messages: SDKMessage[] = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === "tool_progress") void q.interrupt();
    }
    // The run ended while the tool was still running.
    expect(stubborn.running()).toEqual(["s"]);
    stubborn.finish("s");
    const result = messages.find((m) => m.type === "user") as any;
    expect(result.message.content[0]).toMatchObject({ tool_use_id: "s1", is_error: true });
    expect(result.message.content[0].content).toMatch(/interrupted/i);
  });

  it("aborting the caller's controller ends the query with exit reason aborted", async () => {
    const controller = new AbortController();
    const answer = held(reply.text("slow slow slow slow", { chunkSize: 2 }), 3);
    model.enqueue(answer);
    const q = query({ prompt: "x", options: options({ abortController: controller }) });
    void answer.held.then(() => controller.abort());
    const messages = await collect(q);
    expect(resultOf(messages).exit_reason).toBe("aborted");
    expect(q.state.observe().phase).toBe("cancelled");
  });
});

describe("limits and stop conditions", () => {
  it("stops after exactly maxTurns model calls, every call answered", async () => {
    for (let i = 0; i < 3; i++) model.enqueue(reply.toolCalls([{ name: "echo", input: { text: `${i}` } }]));
    const messages = await collect(
      query({ prompt: "loop", options: options({ tools: [echoTool], maxTurns: 3 }) }),
    );
    expect(resultOf(messages)).toMatchObject({ subtype: "error_max_turns", is_error: true, num_turns: 3 });
    expect(model.requests).toHaveLength(3);
    expect(messages.filter((m) => m.type === "user")).toHaveLength(3);
  });

  it("treats stop_reason tool_use without tool calls as end_turn", async () => {
    model.enqueue(reply.text("nothing to run", { stopReason: "tool_use" }));
    const messages = await collect(query({ prompt: "x", options: options() }));
    expect(resultOf(messages)).toMatchObject({ subtype: "success", exit_reason: "end_turn" });
    expect(model.requests).toHaveLength(1);
  });

  it("ends with stop_sequence as a normal finish", async () => {
    model.enqueue(reply.text("up to here", { stopReason: "stop_sequence", stopSequence: "###" }));
    const messages = await collect(query({ prompt: "x", options: options({ stopSequences: ["###"] }) }));
    expect(resultOf(messages).exit_reason).toBe("stop_sequence");
    expect(model.requests[0].stopSequences).toEqual(["###"]);
  });
});

describe("truncated output and provider errors", () => {
  it("never runs the tool calls of an answer cut off by max_tokens, and asks once to continue", async () => {
    const write = gatedTool("slow_write", "mutating");
    model.enqueue(
      reply.toolCalls([{ name: "slow_write", input: { tag: "half" } }], { stopReason: "max_tokens" }),
      reply.text("continued"),
    );
    const messages = await collect(query({ prompt: "x", options: options({ tools: [write.tool] }) }));
    expect(write.log).toEqual([]);
    expect(resultOf(messages).result).toBe("continued");
    expect(sent(1)).not.toContain("tool_use");
    expect(sent(1)).toContain("output token limit");
  });

  it("ends with max_tokens when the answer is cut off twice", async () => {
    model.enqueue(
      reply.text("cut", { stopReason: "max_tokens" }),
      reply.text("cut again", { stopReason: "max_tokens" }),
    );
    const messages = await collect(query({ prompt: "x", options: options() }));
    expect(resultOf(messages)).toMatchObject({
      exit_reason: "max_tokens",
      subtype: "error_during_execution",
    });
  });

  it("ends a run on a provider error that is not retried, with the provider's message", async () => {
    model.enqueue(new ProviderError({ kind: "authentication", provider: "scripted", message: "bad key" }));
    const messages = await collect(query({ prompt: "x", options: options() }));
    const result = resultOf(messages) as any;
    expect(result).toMatchObject({ subtype: "error_during_execution", exit_reason: "error" });
    expect(result.errors.join(" ")).toContain("bad key");
  });

  it("retries an overloaded provider and reports the retry", async () => {
    model.enqueue(
      new ProviderError({ kind: "overloaded", provider: "scripted", message: "busy", status: 529 }),
      reply.text("after retry"),
    );
    const messages = await collect(query({ prompt: "x", options: options() }));
    expect(resultOf(messages).result).toBe("after retry");
    const retry = messages.find((m) => m.type === "system" && (m as any).subtype === "api_retry") as any;
    expect(retry).toMatchObject({ attempt: 1, error_status: 529 });
  });

  it("recovers from a context overflow once per turn by compacting, and does not loop when it still overflows", async () => {
    const overflow = () =>
      new ProviderError({ kind: "context_overflow", provider: "scripted", message: "prompt is too long" });
    let compactions = 0;
    const compactor: QueryOptions["compactor"] = async (history) => {
      compactions++;
      return { messages: history, summary: "s", preTokens: 1000, postTokens: 10 };
    };
    model.enqueue(overflow(), reply.text("fits now"));
    const recovered = await collect(query({ prompt: "x", options: options({ compactor }) }));
    expect(compactions).toBe(1);
    expect(resultOf(recovered).result).toBe("fits now");

    compactions = 0;
    model.enqueue(overflow(), overflow());
    const stuck = await collect(query({ prompt: "x", options: options({ compactor }) }));
    expect(compactions).toBe(1);
    expect(resultOf(stuck).exit_reason).toBe("error");
    expect(model.requests).toHaveLength(4);
  });
});

describe("stop predicates and state", () => {
  it("stops on stepCountIs after the step's tools ran, keeping the transcript valid", async () => {
    model.enqueue(
      reply.toolCalls([{ name: "echo", input: { text: "1" } }]),
      reply.toolCalls([{ name: "echo", input: { text: "2" } }]),
    );
    const messages = await collect(
      query({
        prompt: "x",
        options: options({ tools: [echoTool], stopWhen: stepCountIs(2) }),
      }),
    );
    const result = resultOf(messages);
    expect(result.exit_reason).toBe("predicate");
    expect(result.subtype).toBe("success");
    expect(messages.filter((m) => m.type === "user")).toHaveLength(2);
    expect(model.requests).toHaveLength(2);
  });

  it("stops on hasToolCall and treats a throwing predicate as don't-stop, reporting it", async () => {
    model.enqueue(reply.toolCalls([{ name: "echo", input: { text: "1" } }]));
    const boom = () => {
      throw new Error("predicate bug");
    };
    const messages = await collect(
      query({
        prompt: "x",
        options: options({ tools: [echoTool], stopWhen: [boom, hasToolCall("echo")] }),
      }),
    );
    expect(resultOf(messages).exit_reason).toBe("predicate");
    const warning = messages.find(
      (m) => m.type === "system" && (m as any).subtype === "informational",
    ) as any;
    expect(warning.content).toContain("predicate bug");
  });

  it("moves through the phases and ends in a sticky terminal phase", async () => {
    model.enqueue(reply.toolCalls([{ name: "echo", input: { text: "1" } }]), reply.text("end"));
    const q = query({ prompt: "x", options: options({ tools: [echoTool] }) });
    const seen: Array<[AgentPhase, number]> = [];
    q.state.subscribe((s) => seen.push([s.phase, s.step]));
    await collect(q);
    const phases = seen.map(([p]) => p);
    expect(phases).toContain("llm_in_flight");
    expect(phases).toContain("tool_executing");
    expect(phases).toContain("step_finished");
    expect(seen).toContainEqual(["tool_executing", 1]);
    expect(seen).toContainEqual(["llm_in_flight", 2]);
    expect(phases.at(-1)).toBe("done");
    expect(q.state.observe()).toEqual({ phase: "done", step: 2 });
  });
});
